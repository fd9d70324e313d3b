/* A stand-in for PyIOBase_Type, preloaded (LD_PRELOAD) into the Python processes of the zkpython consumer test
 * (consumers.py zkpython, README.md) on both libraries. It makes Debian's python3-zookeeper importable as it is.
 *
 * Debian 12's binding (zookeeper.cpython-311-x86_64-linux-gnu.so, 3.8.0) refers to PyIOBase_Type, a symbol Python 3
 * no longer exports, so the loader refuses the module: "undefined symbol: PyIOBase_Type". A packaging defect: the
 * binding is otherwise built for this Python. Its one use of the symbol (objdump: set_log_stream) is
 * PyObject_IsInstance(stream, (PyObject*)&PyIOBase_Type). The binding itself stays unmodified.
 *
 * The object must be a type object, not just zero bytes: PyObject_IsInstance reads the class's own type (ob_type)
 * before anything else, and a NULL there crashes the interpreter. With ob_type = &PyType_Type, Python takes its
 * plain-type path: the answer is whether the stand-in is on the MRO of the stream's type, a pointer comparison that
 * comes out false for every object, and set_log_stream raises ValueError ("Must supply a file object"). Nothing else
 * reads the stand-in.
 *
 * PyType_Type is weak: the preload is inherited by the processes Python starts (ASan's llvm-symbolizer among them),
 * where no Python is there to define it. */
#include <Python.h>

#pragma weak PyType_Type

PyTypeObject PyIOBase_Type = {
    PyVarObject_HEAD_INIT(&PyType_Type, 0).tp_name = "zkwire_stand_in.PyIOBase_Type",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
};
