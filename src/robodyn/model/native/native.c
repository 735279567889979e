/*
 * native/native.c: robodyn.model._native, the model layer's compiled helpers (native.h).
 * The model layer sits below the compiled core (robodyn.kernels) and may not import it, so
 * its own few C functions are their own extension.
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL rd_model_ARRAY_API
#include <Python.h>
#include <numpy/arrayobject.h>

#include "native.h"

static PyMethodDef methods[] = {
    {"urdf_read", (PyCFunction)(void (*)(void))py_urdf_read, METH_FASTCALL,
     "urdf_read(data: bytes, origin: str, kit: tuple) -> UrdfRobot: a URDF document's records "
     "(robodyn.model.urdf_records.robot_from_bytes documents it)"},
    {"frozen_arrays", (PyCFunction)(void (*)(void))py_frozen_arrays, METH_FASTCALL,
     "frozen_arrays(items) -> tuple of arrays: each item (values, 'd' or 'q', shape), the values "
     "nested sequences, arrays or numbers filling the shape in C order; each array new, "
     "C-contiguous and read-only (robodyn.model.builder uses it for the Model's arrays)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native",
    "robodyn's model layer, compiled: the URDF reader and the Model's arrays (model/native/).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__native(void)
{
    import_array();
    return PyModule_Create(&module);
}
