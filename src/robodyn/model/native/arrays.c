/*
 * native/arrays.c: frozen_arrays(items) -> the arrays of a Model, each made in one call.
 *
 * An item is (values, code, shape): code 'd' (float64) or 'q' (int64), shape a tuple of
 * sizes, values what fills it in C order: a number for a 0-d array, else a sequence of
 * shape[0] items, each filling shape[1:] (a number, a sequence, or an array of that shape,
 * copied at once when it is C-contiguous of the same type). Codes 'R' and 'p' take a
 * sequence of n 4x4 transforms [[R, p], [0, 1]] and make the float64 array of their
 * rotations (n, 3, 3) or of their translations (n, 3). The arrays are new (they own
 * their data), C-contiguous and read-only: what model.built takes. numpy.array does the
 * same per array, at ~0.3 us of call overhead each and as much again to freeze it; a Model
 * has 31, and a small robot's load is a few dozen microseconds.
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL rd_model_ARRAY_API
#define NO_IMPORT_ARRAY
#include <Python.h>
#include <numpy/arrayobject.h>

#include <string.h>

#include "native.h"

#undef I

/* one leaf number into out[0] as the type `code` says; -1 with TypeError for another */
static int leaf(PyObject *v, char code, char *out)
{
    if (code == 'd') {
        double x = PyFloat_AsDouble(v); /* (a float, an int, a NumPy scalar) */
        if (x == -1.0 && PyErr_Occurred())
            return -1;
        memcpy(out, &x, sizeof x);
    } else {
        if (!PyLong_Check(v) && !PyArray_IsScalar(v, Integer)) {
            PyErr_Format(PyExc_TypeError, "frozen_arrays: an integer array got %R", v);
            return -1;
        }
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred())
            return -1;
        int64_t y = (int64_t)x;
        memcpy(out, &y, sizeof y);
    }
    return 0;
}

/* fill out (n entries of shape[0..ndim-1], size bytes each) from v; -1 with an error */
static int fill(PyObject *v, char code, const npy_intp *shape, int ndim, npy_intp n,
                size_t size, char *out)
{
    if (ndim == 0)
        return leaf(v, code, out);
    if (PyArray_Check(v)) { /* an array of the shape and type: copied at once */
        PyArrayObject *a = (PyArrayObject *)v;
        int type = code == 'd' ? NPY_DOUBLE : NPY_INT64;
        if (PyArray_TYPE(a) == type && PyArray_IS_C_CONTIGUOUS(a) && PyArray_NDIM(a) == ndim
            && PyArray_CompareLists(PyArray_DIMS(a), (npy_intp *)shape, ndim)) {
            memcpy(out, PyArray_DATA(a), (size_t)n * size);
            return 0;
        }
    }
    PyObject *seq = PySequence_Fast(v, "frozen_arrays: values must be sequences");
    if (seq == NULL)
        return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    if (len != shape[0]) {
        PyErr_Format(PyExc_ValueError, "frozen_arrays: %zd items where the shape says %zd", len,
                     (Py_ssize_t)shape[0]);
        Py_DECREF(seq);
        return -1;
    }
    npy_intp step = len ? n / len : 0; /* entries per item */
    PyObject **items = PySequence_Fast_ITEMS(seq);
    int rc = 0;
    for (Py_ssize_t k = 0; k < len && rc == 0; k++)
        rc = fill(items[k], code, shape + 1, ndim - 1, step, size, out + (size_t)(k * step) * size);
    Py_DECREF(seq);
    return rc;
}

/* 'R' and 'p': the rotation blocks (n, 3, 3) or translations (n, 3) of n 4x4 transforms */
static int blocks(PyObject *values, char code, npy_intp n, double *out)
{
    PyObject *seq = PySequence_Fast(values, "frozen_arrays: values must be sequences");
    if (seq == NULL)
        return -1;
    int rc = PySequence_Fast_GET_SIZE(seq) == n ? 0 : -1;
    if (rc < 0)
        PyErr_SetString(PyExc_ValueError, "frozen_arrays: as many transforms as the shape says");
    for (npy_intp k = 0; k < n && rc == 0; k++) {
        PyArrayObject *T = (PyArrayObject *)PyArray_FROM_OTF(PySequence_Fast_GET_ITEM(seq, k),
                                                             NPY_DOUBLE, NPY_ARRAY_IN_ARRAY);
        if (T == NULL || PyArray_SIZE(T) != 16) {
            if (T != NULL)
                PyErr_SetString(PyExc_ValueError, "frozen_arrays: a transform is 4x4");
            Py_XDECREF(T);
            rc = -1;
            break;
        }
        const double *t = PyArray_DATA(T); /* T = [[R, p], [0, 1]], row-major */
        for (int i = 0; i < 3; i++) {
            if (code == 'p')
                out[3 * k + i] = t[4 * i + 3];
            else
                for (int j = 0; j < 3; j++)
                    out[9 * k + 3 * i + j] = t[4 * i + j];
        }
        Py_DECREF(T);
    }
    Py_DECREF(seq);
    return rc;
}

/* one item (values, code, shape) -> its frozen array */
static PyObject *frozen(PyObject *item)
{
    PyObject *values, *shape_obj;
    const char *code_s;
    if (!PyTuple_Check(item)
        || !PyArg_ParseTuple(item, "OsO!", &values, &code_s, &PyTuple_Type, &shape_obj))
        return PyErr_Occurred() ? NULL
                                : (PyErr_SetString(PyExc_TypeError, "frozen_arrays: items are "
                                                                    "(values, code, shape)"),
                                   NULL);
    char code = code_s[0];
    int ndim = (int)PyTuple_GET_SIZE(shape_obj);
    int ok_shape = code == 'R' ? ndim == 3 && PyLong_AsLong(PyTuple_GET_ITEM(shape_obj, 1)) == 3
                                     && PyLong_AsLong(PyTuple_GET_ITEM(shape_obj, 2)) == 3
                 : code == 'p' ? ndim == 2 && PyLong_AsLong(PyTuple_GET_ITEM(shape_obj, 1)) == 3
                               : ndim <= NPY_MAXDIMS;
    if (!strchr("dqRp", code) || !code || code_s[1] || !ok_shape) {
        PyErr_SetString(PyExc_ValueError, "frozen_arrays: code 'd' or 'q' (at most 32 sizes), "
                                          "'R' (shape (n, 3, 3)) or 'p' (shape (n, 3))");
        return NULL;
    }
    npy_intp shape[NPY_MAXDIMS], n = 1;
    for (int d = 0; d < ndim; d++) {
        shape[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape_obj, d));
        if (shape[d] < 0)
            return PyErr_Occurred() ? NULL
                                    : (PyErr_SetString(PyExc_ValueError,
                                                       "frozen_arrays: a negative size"),
                                       NULL);
        n *= shape[d];
    }
    PyArrayObject *a =
        (PyArrayObject *)PyArray_SimpleNew(ndim, shape, code == 'q' ? NPY_INT64 : NPY_DOUBLE);
    if (a == NULL)
        return NULL;
    int rc = code == 'R' || code == 'p' ? blocks(values, code, shape[0], PyArray_DATA(a))
                                        : fill(values, code, shape, ndim, n, 8, PyArray_DATA(a));
    if (rc < 0) {
        Py_DECREF(a);
        return NULL;
    }
    PyArray_CLEARFLAGS(a, NPY_ARRAY_WRITEABLE);
    return (PyObject *)a;
}

PyObject *py_frozen_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 1) {
        PyErr_SetString(PyExc_TypeError, "frozen_arrays(items) takes one argument");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(args[0], "frozen_arrays: items must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyTuple_New(len);
    for (Py_ssize_t k = 0; out && k < len; k++) {
        PyObject *a = frozen(PySequence_Fast_GET_ITEM(seq, k));
        if (a == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, k, a);
    }
    Py_DECREF(seq);
    return out;
}
