/*
 * native.h: the model layer's compiled helpers (robodyn.model._native), registered by
 * native.c: what a load does per element, where Python's per-call cost would dominate.
 *
 *   urdf_read(data, origin, kit) -> UrdfRobot     a URDF document's records (urdfread.c)
 *   frozen_arrays(items) -> tuple of arrays       a Model's arrays, read-only (arrays.c)
 */
#ifndef RD_MODEL_NATIVE_H
#define RD_MODEL_NATIVE_H

#include <Python.h>

PyObject *py_urdf_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *py_frozen_arrays(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#endif
