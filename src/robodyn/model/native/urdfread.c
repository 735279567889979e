/*
 * native/urdfread.c: a URDF document's bytes -> robodyn's URDF records (model/urdf_description.py:
 * UrdfRobot, UrdfLink, UrdfInertial, UrdfGeometry, UrdfJoint), as model/urdf.py's
 * robot_from_bytes documents them.
 *
 * Two steps, each its own function:
 *
 * 1. parse_document: expat (Python's own parser, reached through pyexpat's C interface,
 *    the capsule "pyexpat.expat_CAPI") turns the bytes into a flat element tree: each
 *    element its tag, its attributes and the links to its parent, first child and next
 *    sibling, the strings in one arena. A DOCTYPE is refused (model/urdf.py has already
 *    refused its bytes; this is the second line, as parse_xml's handlers are).
 * 2. read_robot: the tree read as the URDF specification reads it, in the order of
 *    urdf.py's reader before this file replaced it (links, then joints, each element's
 *    attributes in a fixed order), so the first problem found is the same.
 *
 * Numbers: an attribute made only of the characters of a decimal number and ASCII
 * whitespace is read here (its text matching [+-]?(d+.?d*|.d+)([eE][+-]?d+)?, read by
 * PyOS_string_to_double, as float() reads it, and finite); anything else goes to the
 * Python functions of the kit (kit.scalar, kit.triple, kit.rgba), which accept what float()
 * accepts and raise the ModelError naming the element and attribute. Every structural
 * problem is raised by kit.fail(code, ...), so every message is written once, in urdf.py.
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL rd_model_ARRAY_API /* numpy's C interface, imported by native.c */
#define NO_IMPORT_ARRAY
#include <Python.h>
#include <numpy/arrayobject.h>

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* numpy includes complex.h, whose I (the imaginary unit) no name here needs */
#undef I

#include "native.h"

/* ------------------------------------------------------------ expat, as pyexpat has it */
/* The types of expat.h that pyexpat.h names (expat's ABI, unchanged since expat 1.95;
   XML_Char is char: CPython builds expat without XML_UNICODE). */
typedef struct XML_ParserStruct *XML_Parser;
typedef char XML_Char;
typedef char XML_LChar;
typedef unsigned char XML_Bool;
typedef unsigned long XML_Size;
enum XML_Status { XML_STATUS_ERROR_ = 0, XML_STATUS_OK_ = 1 };
enum XML_Error { XML_ERROR_NONE_ = 0 };
typedef struct {
    void *(*malloc_fcn)(size_t size);
    void *(*realloc_fcn)(void *ptr, size_t size);
    void (*free_fcn)(void *ptr);
} XML_Memory_Handling_Suite;
typedef struct {
    int map[256];
    void *data;
    int (*convert)(void *data, const char *s);
    void (*release)(void *data);
} XML_Encoding;
typedef void (*XML_StartElementHandler)(void *, const XML_Char *, const XML_Char **);
typedef void (*XML_EndElementHandler)(void *, const XML_Char *);
typedef void (*XML_CharacterDataHandler)(void *, const XML_Char *, int);
typedef void (*XML_CommentHandler)(void *, const XML_Char *);
typedef void (*XML_DefaultHandler)(void *, const XML_Char *, int);
typedef void (*XML_StartNamespaceDeclHandler)(void *, const XML_Char *, const XML_Char *);
typedef void (*XML_EndNamespaceDeclHandler)(void *, const XML_Char *);
typedef void (*XML_ProcessingInstructionHandler)(void *, const XML_Char *, const XML_Char *);
typedef int (*XML_UnknownEncodingHandler)(void *, const XML_Char *, XML_Encoding *);
typedef void (*XML_StartDoctypeDeclHandler)(void *, const XML_Char *, const XML_Char *,
                                            const XML_Char *, int);
#include <pyexpat.h>

/* ------------------------------------------------------------ the element tree */
typedef struct {
    Py_ssize_t tag;            /* offset of the tag in the arena */
    Py_ssize_t attr, nattr;    /* first attribute (pairs of arena offsets), their number */
    Py_ssize_t parent, child, last, next; /* element indices, -1 for none */
} elem_t;

typedef struct {
    char *arena;
    Py_ssize_t arena_len, arena_cap;
    Py_ssize_t *attrs; /* name, value offsets */
    Py_ssize_t attrs_len, attrs_cap;
    elem_t *el;
    Py_ssize_t n, cap;
    Py_ssize_t open; /* the element being read, -1 outside the root */
    int failed;      /* 1: out of memory, 2: a DOCTYPE */
} tree_t;

static int grow(void **p, Py_ssize_t *cap, Py_ssize_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* the string s copied into the arena, NUL-terminated; its offset, -1 out of memory */
static Py_ssize_t keep(tree_t *t, const char *s)
{
    Py_ssize_t len = (Py_ssize_t)strlen(s) + 1, at = t->arena_len;
    if (grow((void **)&t->arena, &t->arena_cap, at + len, 1) < 0)
        return -1;
    memcpy(t->arena + at, s, (size_t)len);
    t->arena_len += len;
    return at;
}

static void on_start(void *data, const XML_Char *tag, const XML_Char **atts)
{
    tree_t *t = data;
    if (t->failed)
        return;
    Py_ssize_t na = 0;
    while (atts[2 * na])
        na++;
    if (grow((void **)&t->el, &t->cap, t->n + 1, sizeof(elem_t)) < 0
        || grow((void **)&t->attrs, &t->attrs_cap, t->attrs_len + 2 * na, sizeof(Py_ssize_t)) < 0) {
        t->failed = 1;
        return;
    }
    elem_t *e = &t->el[t->n];
    e->tag = keep(t, tag);
    e->attr = t->attrs_len;
    e->nattr = na;
    e->parent = t->open;
    e->child = e->last = e->next = -1;
    for (Py_ssize_t k = 0; k < 2 * na; k++)
        if ((t->attrs[t->attrs_len++] = keep(t, atts[k])) < 0)
            e->tag = -1;
    if (e->tag < 0) {
        t->failed = 1;
        return;
    }
    if (t->open >= 0) { /* appended to its parent's children */
        elem_t *p = &t->el[t->open];
        if (p->last >= 0)
            t->el[p->last].next = t->n;
        else
            p->child = t->n;
        p->last = t->n;
    }
    t->open = t->n++;
}

static void on_end(void *data, const XML_Char *tag)
{
    (void)tag;
    tree_t *t = data;
    if (!t->failed && t->open >= 0)
        t->open = t->el[t->open].parent;
}

static void on_doctype(void *data, const XML_Char *name, const XML_Char *sysid,
                       const XML_Char *pubid, int has_internal_subset)
{
    (void)name, (void)sysid, (void)pubid, (void)has_internal_subset;
    ((tree_t *)data)->failed = 2;
}

static void tree_free(tree_t *t)
{
    free(t->arena);
    free(t->attrs);
    free(t->el);
}

static const struct PyExpat_CAPI *expat_capi(void)
{
    static const struct PyExpat_CAPI *capi = NULL;
    if (capi == NULL) {
        const struct PyExpat_CAPI *c = PyCapsule_Import(PyExpat_CAPSULE_NAME, 0);
        if (c == NULL)
            return NULL;
        if (strcmp(c->magic, PyExpat_CAPI_MAGIC) != 0
            || (size_t)c->size < offsetof(struct PyExpat_CAPI, SetEncoding)) {
            PyErr_SetString(PyExc_ImportError, "pyexpat's C interface is not the one "
                                               "robodyn's URDF reader was built for");
            return NULL;
        }
        capi = c;
    }
    return capi;
}

/* 1. The element tree of the document; 0, or -1 with kit.fail raised (not well-formed
   XML, a DOCTYPE) or MemoryError. */
static int parse_document(tree_t *t, const char *data, Py_ssize_t len, PyObject *kit_fail,
                          PyObject *origin)
{
    const struct PyExpat_CAPI *x = expat_capi();
    if (x == NULL)
        return -1;
    if (len > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "URDF document too large");
        return -1;
    }
    XML_Parser p = x->ParserCreate_MM(NULL, NULL, NULL);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (x->SetHashSalt != NULL) /* Python's own salt, as pyexpat's parsers take it (expat
                                   would otherwise ask the system for fresh randomness) */
        x->SetHashSalt(p, (unsigned long)_Py_HashSecret.expat.hashsalt);
    x->SetUserData(p, t);
    x->SetElementHandler(p, on_start, on_end);
    x->SetStartDoctypeDeclHandler(p, on_doctype);
    x->SetUnknownEncodingHandler(p, (XML_UnknownEncodingHandler)x->DefaultUnknownEncodingHandler,
                                 NULL); /* single-byte codecs, as pyexpat */
    int ok = x->Parse(p, data, (int)len, 1) != XML_STATUS_ERROR_;
    PyObject *r = NULL;
    if (PyErr_Occurred()) { /* pyexpat's encoding handler refused a codec (ValueError) */
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            r = PyObject_CallFunction(kit_fail, "sOO", "xml_codec", origin, value);
            Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        }
        ok = 0;
    } else if (t->failed == 1)
        PyErr_NoMemory();
    else if (t->failed == 2)
        r = PyObject_CallFunction(kit_fail, "sO", "doctype", origin);
    else if (!ok)
        r = PyObject_CallFunction(kit_fail, "sOkks", "xml", origin,
                                  (unsigned long)x->GetErrorLineNumber(p),
                                  (unsigned long)x->GetErrorColumnNumber(p),
                                  x->ErrorString(x->GetErrorCode(p)));
    x->ParserFree(p);
    Py_XDECREF(r); /* (kit.fail raises: r is NULL) */
    return (ok && !t->failed) ? 0 : -1;
}

/* ------------------------------------------------------------ reading the tree */
typedef struct {
    tree_t *t;
    PyObject *fail, *scalar, *triple, *rgba; /* the kit's functions */
    PyObject *joint_types;                   /* the joint types robodyn reads (a set) */
    PyObject *cls_robot, *cls_link, *cls_joint, *cls_inertial, *cls_geometry;
    PyObject *origin;
    PyObject *materials; /* {name or None: rgba or None} of the <robot>'s <material>s */
} reader_t;

static const char *tag_of(const reader_t *r, Py_ssize_t e) { return r->t->arena + r->t->el[e].tag; }

/* the value of attribute `name` of element e (NULL: absent; e < 0: no element) */
static const char *get(const reader_t *r, Py_ssize_t e, const char *name)
{
    if (e < 0)
        return NULL;
    const elem_t *el = &r->t->el[e];
    for (Py_ssize_t k = 0; k < el->nattr; k++)
        if (strcmp(r->t->arena + r->t->attrs[el->attr + 2 * k], name) == 0)
            return r->t->arena + r->t->attrs[el->attr + 2 * k + 1];
    return NULL;
}

/* the first child of e with tag `tag` (-1: none), and how many there are */
static Py_ssize_t find(const reader_t *r, Py_ssize_t e, const char *tag, Py_ssize_t *count)
{
    Py_ssize_t first = -1, n = 0;
    for (Py_ssize_t c = e < 0 ? -1 : r->t->el[e].child; c >= 0; c = r->t->el[c].next)
        if (strcmp(tag_of(r, c), tag) == 0) {
            if (first < 0)
                first = c;
            n++;
        }
    if (count)
        *count = n;
    return first;
}

/* the next sibling of c with the same tag (-1: none) */
static Py_ssize_t find_next(const reader_t *r, Py_ssize_t c)
{
    const char *tag = tag_of(r, c);
    for (c = r->t->el[c].next; c >= 0; c = r->t->el[c].next)
        if (strcmp(tag_of(r, c), tag) == 0)
            return c;
    return -1;
}

static PyObject *str(const char *s) { return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), NULL); }

/* Up to `max` decimal numbers of s, split at ASCII whitespace, into x; how many there are,
   or -1 when s holds anything else (another character, a word that is not a decimal
   number, a number that is not finite, more than `max`): Python then reads it. */
static int decimals(const char *s, double *x, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (!*s)
            return n;
        const char *w = s;
        if (*s == '+' || *s == '-')
            s++;
        int digits = 0;
        while (*s >= '0' && *s <= '9')
            s++, digits++;
        if (*s == '.') {
            s++;
            while (*s >= '0' && *s <= '9')
                s++, digits++;
        }
        if (!digits)
            return -1;
        if (*s == 'e' || *s == 'E') {
            s++;
            if (*s == '+' || *s == '-')
                s++;
            if (!(*s >= '0' && *s <= '9'))
                return -1;
            while (*s >= '0' && *s <= '9')
                s++;
        }
        if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return -1;
        if (n == max || s - w > 400)
            return -1;
        char buf[402];
        memcpy(buf, w, (size_t)(s - w));
        buf[s - w] = '\0';
        double v = PyOS_string_to_double(buf, NULL, NULL);
        if (v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        if (!isfinite(v))
            return -1;
        x[n++] = v;
    }
}

/* where a number stands, for kit.scalar and kit.triple: "link 'a' <inertial>" ... */
typedef struct {
    const char *fmt; /* PyUnicode_FromFormat's, of `name` */
    PyObject *name;
} ctx_t;

static PyObject *ctx_text(ctx_t c) { return PyUnicode_FromFormat(c.fmt, c.name); }

/* kit.<fn>(ctx, tag, attr, raw): Python reads what decimals() leaves (or raises) */
static PyObject *slow(PyObject *fn, ctx_t c, const char *tag, const char *attr, const char *raw)
{
    PyObject *ctx = ctx_text(c);
    if (ctx == NULL)
        return NULL;
    PyObject *out = PyObject_CallFunction(fn, "Osss", ctx, tag, attr, raw);
    Py_DECREF(ctx);
    return out;
}

/* _scalar: the attribute's number; `dflt` (a new reference) when it is absent */
static PyObject *scalar(reader_t *r, Py_ssize_t e, const char *attr, ctx_t c, PyObject *dflt)
{
    const char *raw = get(r, e, attr);
    if (raw == NULL)
        return dflt;
    Py_XDECREF(dflt);
    double x;
    if (decimals(raw, &x, 1) == 1)
        return PyFloat_FromDouble(x);
    return slow(r->scalar, c, tag_of(r, e), attr, raw);
}

/* a tuple of n floats */
static PyObject *floats(const double *x, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int k = 0; t && k < n; k++) {
        PyObject *f = PyFloat_FromDouble(x[k]);
        if (f == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, k, f);
    }
    return t;
}

static PyObject *triple_of(double a, double b, double c) { return floats((double[]){a, b, c}, 3); }

/* _triple: the attribute's three numbers; (d0, d1, d2) when it or e is absent */
static PyObject *triple(reader_t *r, Py_ssize_t e, const char *attr, ctx_t c, double d0,
                        double d1, double d2)
{
    const char *raw = get(r, e, attr);
    if (raw == NULL)
        return triple_of(d0, d1, d2);
    double x[3];
    if (decimals(raw, x, 3) == 3)
        return triple_of(x[0], x[1], x[2]);
    return slow(r->triple, c, tag_of(r, e), attr, raw);
}

/* the field name `name` (a string literal) as an interned str, made once per literal */
static PyObject *field_name(const char *name)
{
    static struct {
        const char *literal;
        PyObject *str;
    } kept[64];
    static int n = 0;
    for (int k = 0; k < n; k++)
        if (kept[k].literal == name)
            return kept[k].str;
    if (n == 64) { /* (the records have 39 fields in all) */
        PyErr_SetString(PyExc_SystemError, "urdf_read: more than 64 field names");
        return NULL;
    }
    PyObject *s = PyUnicode_InternFromString(name); /* kept for the life of the module */
    if (s != NULL) {
        kept[n].literal = name;
        kept[n++].str = s;
    }
    return s;
}

/* an object of a record class, its fields set (the class's frozen __init__ bypassed; every
   field given): names and values alternate, NULL-terminated; the values' references are
   stolen (a NULL value: an error already raised) */
static PyObject *record(PyObject *cls, ...)
{
    va_list ap;
    va_start(ap, cls);
    static PyObject *empty = NULL; /* object.__new__(cls), as model.built does */
    if (empty == NULL)
        empty = PyTuple_New(0);
    PyObject *obj = empty ? ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, empty, NULL) : NULL;
    PyObject *dict = obj ? PyObject_GenericGetDict(obj, NULL) : NULL;
    int bad = dict == NULL;
    for (const char *name; (name = va_arg(ap, const char *)) != NULL;) {
        PyObject *v = va_arg(ap, PyObject *);
        PyObject *key = bad || v == NULL ? NULL : field_name(name);
        if (key == NULL || PyDict_SetItem(dict, key, v) < 0)
            bad = 1;
        Py_XDECREF(v);
    }
    va_end(ap);
    Py_XDECREF(dict);
    if (bad) {
        Py_XDECREF(obj);
        return NULL;
    }
    return obj;
}

static PyObject *none(void) { Py_RETURN_NONE; }

/* kit.fail(code, ...) with Py_BuildValue's `fmt` of the arguments: it raises the ModelError
   whose message urdf.py writes for `code`; NULL */
static PyObject *fail_with(const reader_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *a = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    PyObject *out = a ? PyObject_CallObject(r->fail, a) : NULL;
    Py_XDECREF(a);
    if (out != NULL) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_RuntimeError, "urdf_read: kit.fail returned");
    }
    return NULL;
}

/* _material_rgba: the <color rgba> of <material> element m, or the robot-level material
   its name names (with `named`); None for none or a colour that is not four numbers */
static PyObject *material_rgba(reader_t *r, Py_ssize_t m, int named)
{
    if (m < 0)
        return none();
    const char *raw = get(r, find(r, m, "color", NULL), "rgba");
    if (raw != NULL) {
        double x[4];
        if (decimals(raw, x, 4) == 4)
            return floats(x, 4);
        return PyObject_CallFunction(r->rgba, "s", raw);
    }
    if (!named || r->materials == NULL)
        return none();
    const char *name = get(r, m, "name");
    PyObject *key = name ? str(name) : none();
    if (key == NULL)
        return NULL;
    PyObject *v = PyDict_GetItemWithError(r->materials, key);
    Py_DECREF(key);
    if (v == NULL && PyErr_Occurred())
        return NULL;
    v = v ? v : Py_None;
    Py_INCREF(v);
    return v;
}

/* _parse_shape: a <collision> or <visual> element g as a UrdfGeometry */
static PyObject *read_geometry(reader_t *r, Py_ssize_t g, ctx_t c, ctx_t gc, PyObject *rgba)
{
    Py_ssize_t o = find(r, g, "origin", NULL);
    PyObject *xyz = triple(r, o, "xyz", c, 0, 0, 0);
    PyObject *rpy = xyz ? triple(r, o, "rpy", c, 0, 0, 0) : NULL;
    Py_ssize_t geo = find(r, g, "geometry", NULL);
    Py_ssize_t s = geo < 0 ? -1 : r->t->el[geo].child; /* the first element in <geometry> */
    const char *kind = s < 0 ? "unknown" : tag_of(r, s);
    PyObject *size = NULL, *radius = NULL, *length = NULL, *filename = NULL, *scale = NULL;
    int bad = rpy == NULL;
    if (!bad && strcmp(kind, "mesh") == 0) {
        const char *f = get(r, s, "filename");
        bad = (scale = triple(r, s, "scale", gc, 1, 1, 1)) == NULL
              || (filename = f ? str(f) : none()) == NULL;
    } else if (!bad && strcmp(kind, "box") == 0) {
        bad = (size = triple(r, s, "size", gc, 0, 0, 0)) == NULL;
    } else if (!bad && (strcmp(kind, "cylinder") == 0 || strcmp(kind, "capsule") == 0)) {
        bad = (radius = scalar(r, s, "radius", gc, PyFloat_FromDouble(0.0))) == NULL
              || (length = scalar(r, s, "length", gc, PyFloat_FromDouble(0.0))) == NULL;
    } else if (!bad && strcmp(kind, "sphere") == 0) {
        bad = (radius = scalar(r, s, "radius", gc, PyFloat_FromDouble(0.0))) == NULL;
    } else {
        kind = "unknown";
    }
    if (bad) {
        Py_XDECREF(xyz), Py_XDECREF(rpy), Py_XDECREF(size), Py_XDECREF(radius);
        Py_XDECREF(length), Py_XDECREF(filename), Py_XDECREF(scale), Py_XDECREF(rgba);
        return NULL;
    }
    return record(r->cls_geometry, "kind", PyUnicode_FromString(kind), "xyz", xyz, "rpy", rpy,
                  "size", size ? size : none(), "radius", radius ? radius : none(),
                  "length", length ? length : none(), "filename", filename ? filename : none(),
                  "scale", scale ? scale : none(), "rgba", rgba, "search_path", PyTuple_New(0),
                  NULL);
}

/* the link's <collision> (visual 0) or <visual> (1) geometries as a tuple */
static PyObject *read_geometries(reader_t *r, Py_ssize_t link, PyObject *name, int visual)
{
    ctx_t c = {visual ? "link %R <visual>" : "link %R <collision>", name};
    ctx_t gc = {visual ? "link %R <visual><geometry>" : "link %R <collision><geometry>", name};
    Py_ssize_t n, g = find(r, link, visual ? "visual" : "collision", &n);
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t k = 0; out && k < n; k++, g = find_next(r, g)) {
        PyObject *rgba = visual ? material_rgba(r, find(r, g, "material", NULL), 1) : none();
        PyObject *item = rgba ? read_geometry(r, g, c, gc, rgba) : NULL;
        if (item == NULL)
            Py_CLEAR(out);
        else
            PyTuple_SET_ITEM(out, k, item);
    }
    return out;
}

/* _parse_inertial: the <inertial> element e of link `name` as a UrdfInertial */
static PyObject *read_inertial(reader_t *r, Py_ssize_t e, PyObject *name)
{
    ctx_t c = {"link %R <inertial>", name};
    Py_ssize_t o = find(r, e, "origin", NULL), m = find(r, e, "mass", NULL);
    PyObject *xyz = triple(r, o, "xyz", c, 0, 0, 0);
    PyObject *rpy = xyz ? triple(r, o, "rpy", c, 0, 0, 0) : NULL, *mass = NULL;
    if (rpy != NULL && m < 0)
        fail_with(r, "(sO)", "mass", name);
    else if (rpy != NULL && get(r, m, "value") == NULL)
        fail_with(r, "(sO)", "mass_value", name);
    else if (rpy != NULL && (mass = scalar(r, m, "value", c, NULL)) != NULL
             && PyFloat_AS_DOUBLE(mass) < 0) {
        fail_with(r, "(sOsO)", "negative_mass", name, get(r, m, "value"), mass);
        Py_CLEAR(mass);
    }
    npy_intp dims[2] = {3, 3};
    PyArrayObject *tensor = mass ? (PyArrayObject *)PyArray_ZEROS(2, dims, NPY_DOUBLE, 0) : NULL;
    Py_ssize_t ie = find(r, e, "inertia", NULL);
    if (tensor != NULL && ie >= 0) { /* [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]] */
        static const char *keys[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        static const int at[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
        double *a = PyArray_DATA(tensor);
        for (int k = 0; k < 6; k++) {
            PyObject *v = scalar(r, ie, keys[k], c, PyFloat_FromDouble(0.0));
            if (v == NULL) {
                Py_CLEAR(tensor);
                break;
            }
            a[3 * at[k][0] + at[k][1]] = a[3 * at[k][1] + at[k][0]] = PyFloat_AS_DOUBLE(v);
            Py_DECREF(v);
        }
    }
    if (tensor == NULL) {
        Py_XDECREF(xyz), Py_XDECREF(rpy), Py_XDECREF(mass);
        return NULL;
    }
    PyArray_CLEARFLAGS(tensor, NPY_ARRAY_WRITEABLE);
    return record(r->cls_inertial, "mass", mass, "xyz", xyz, "rpy", rpy, "inertia",
                  (PyObject *)tensor, NULL);
}

/* _parse_link: the <link> element e, named `name`, as a UrdfLink */
static PyObject *read_link(reader_t *r, Py_ssize_t e, PyObject *name)
{
    Py_ssize_t n, in = find(r, e, "inertial", &n);
    if (n > 1)
        return fail_with(r, "(sOn)", "inertials", name, n);
    PyObject *inert = in >= 0 ? read_inertial(r, in, name) : none();
    PyObject *cols = inert ? read_geometries(r, e, name, 0) : NULL;
    PyObject *vis = cols ? read_geometries(r, e, name, 1) : NULL;
    if (vis == NULL) {
        Py_XDECREF(inert), Py_XDECREF(cols);
        return NULL;
    }
    Py_INCREF(name);
    return record(r->cls_link, "name", name, "inertial", inert, "collisions", cols, "visuals", vis,
                  NULL);
}

/* the parent or child link of joint e (NULL with kit.fail raised: missing, repeated, empty) */
static PyObject *joint_end(reader_t *r, Py_ssize_t e, PyObject *name, const char *tag)
{
    Py_ssize_t n, c = find(r, e, tag, &n);
    const char *l = get(r, c, "link");
    if (n == 1 && l != NULL && *l)
        return str(l);
    const char *what = n == 0 ? "missing" : (n > 1 ? "repeated" : "empty");
    return fail_with(r, "(sOss)", "joint_end", name, what, tag);
}

/* _parse_joint: the <joint> element e, named `name`, as a UrdfJoint */
static PyObject *read_joint(reader_t *r, Py_ssize_t e, PyObject *name)
{
    ctx_t c = {"joint %R ", name};
    const char *type = get(r, e, "type");
    if (type == NULL)
        return fail_with(r, "(sO)", "no_joint_type", name);

    PyObject *v[17] = {NULL}; /* type, parent, child, xyz, rpy, axis, has_limit, lower, upper,
                                 velocity, effort, damping, friction, armature, mimic,
                                 multiplier, offset */
    Py_ssize_t o = find(r, e, "origin", NULL), lim = find(r, e, "limit", NULL);
    Py_ssize_t dyn = find(r, e, "dynamics", NULL), mim = find(r, e, "mimic", NULL);
    static const char *lims[4] = {"lower", "upper", "velocity", "effort"};
    static const char *dyns[3] = {"damping", "friction", "armature"};
    if ((v[0] = str(type)) == NULL)
        return NULL;
    int known = PySet_Contains(r->joint_types, v[0]);
    if (known <= 0) {
        Py_DECREF(v[0]);
        return known < 0 ? NULL : fail_with(r, "(sOs)", "joint_type", name, type);
    }
    int bad = (v[1] = joint_end(r, e, name, "parent")) == NULL
              || (v[2] = joint_end(r, e, name, "child")) == NULL
              || (v[3] = triple(r, o, "xyz", c, 0, 0, 0)) == NULL
              || (v[4] = triple(r, o, "rpy", c, 0, 0, 0)) == NULL
              || (v[5] = triple(r, find(r, e, "axis", NULL), "xyz", c, 1, 0, 0)) == NULL;
    v[6] = PyBool_FromLong(lim >= 0);
    for (int k = 0; k < 4 && !bad; k++)
        bad = (v[7 + k] = lim < 0 ? none() : scalar(r, lim, lims[k], c, none())) == NULL;
    for (int k = 0; k < 3 && !bad; k++)
        bad = (v[11 + k] = dyn < 0 ? PyFloat_FromDouble(0.0)
                                   : scalar(r, dyn, dyns[k], c, PyFloat_FromDouble(0.0))) == NULL;
    if (!bad && mim >= 0) {
        const char *leader = get(r, mim, "joint");
        if (leader == NULL || !*leader) {
            fail_with(r, "(sO)", "mimic", name);
            bad = 1;
        } else {
            bad = (v[14] = str(leader)) == NULL
                  || (v[15] = scalar(r, mim, "multiplier", c, PyFloat_FromDouble(1.0))) == NULL
                  || (v[16] = scalar(r, mim, "offset", c, PyFloat_FromDouble(0.0))) == NULL;
        }
    } else if (!bad) {
        v[14] = none(), v[15] = PyFloat_FromDouble(1.0), v[16] = PyFloat_FromDouble(0.0);
    }
    if (bad) {
        for (int k = 0; k < 17; k++)
            Py_XDECREF(v[k]);
        return NULL;
    }
    Py_INCREF(name);
    return record(r->cls_joint, "name", name, "type", v[0], "parent", v[1], "child", v[2],
                  "xyz", v[3], "rpy", v[4], "axis", v[5], "has_limit", v[6], "lower", v[7],
                  "upper", v[8], "velocity", v[9], "effort", v[10], "damping", v[11],
                  "friction", v[12], "armature", v[13], "mimic", v[14], "multiplier", v[15],
                  "offset", v[16], NULL);
}

/* s is ASCII and all of it what str.strip() removes (an empty s too) */
static int blank_ascii(const char *s)
{
    for (; *s; s++)
        if (!strchr(" \t\n\r\v\f\x1c\x1d\x1e\x1f", *s))
            return 0;
    return 1;
}

/* the <link>s (joints 0) or <joint>s (1) of the robot into `out` {name: record}, in
   document order; a missing or blank name, or a repeated one, raised by kit.fail */
static int read_elements(reader_t *r, Py_ssize_t root, int joints, PyObject *out)
{
    const char *tag = joints ? "joint" : "link";
    Py_ssize_t n, e = find(r, root, tag, &n);
    for (Py_ssize_t i = 0; i < n; i++, e = find_next(r, e)) {
        const char *raw = get(r, e, "name");
        PyObject *name = raw ? str(raw) : NULL, *stripped = NULL, *item = NULL;
        if (raw && name == NULL)
            return -1;
        if (name != NULL && blank_ascii(raw))
            stripped = PyUnicode_New(0, 0);
        else if (name != NULL && PyUnicode_IS_ASCII(name)) /* (not blank: itself) */
            stripped = Py_NewRef(name);
        else if (name != NULL) /* (str.strip() knows the other blanks) */
            stripped = PyObject_CallMethod(name, "strip", NULL);
        if (name == NULL || (stripped && PyUnicode_GET_LENGTH(stripped) == 0)) {
            fail_with(r, "(ssn)", "noname", tag, i + 1);
        } else if (stripped != NULL) {
            int seen = PyDict_Contains(out, name);
            if (seen > 0)
                fail_with(r, "(ssO)", "duplicate", tag, name);
            else if (seen == 0)
                item = joints ? read_joint(r, e, name) : read_link(r, e, name);
        }
        int bad = item == NULL || PyDict_SetItem(out, name, item) < 0;
        Py_XDECREF(name), Py_XDECREF(stripped), Py_XDECREF(item);
        if (bad)
            return -1;
    }
    return 0;
}

/* the {name: rgba} of the <robot>'s own <material> elements (a later one of a name wins) */
static PyObject *read_materials(reader_t *r, Py_ssize_t root)
{
    PyObject *out = PyDict_New();
    Py_ssize_t n, m = find(r, root, "material", &n);
    for (Py_ssize_t k = 0; out && k < n; k++, m = find_next(r, m)) {
        const char *name = get(r, m, "name");
        PyObject *key = name ? str(name) : none(), *rgba = key ? material_rgba(r, m, 0) : NULL;
        if (rgba == NULL || PyDict_SetItem(out, key, rgba) < 0)
            Py_CLEAR(out);
        Py_XDECREF(key), Py_XDECREF(rgba);
    }
    return out;
}

/* 2. robot_from_element: the <robot> element as a UrdfRobot */
static PyObject *read_robot(reader_t *r)
{
    if (strcmp(tag_of(r, 0), "robot") != 0)
        return fail_with(r, "(sOs)", "root", r->origin, tag_of(r, 0));
    const char *raw = get(r, 0, "name");
    PyObject *name = str(raw && *raw ? raw : "robot");
    PyObject *links = PyDict_New(), *joints = PyDict_New();
    r->materials = (name && links && joints) ? read_materials(r, 0) : NULL;
    int bad = r->materials == NULL || read_elements(r, 0, 0, links) < 0;
    if (!bad && PyDict_GET_SIZE(links) == 0) {
        fail_with(r, "(sOO)", "nolinks", r->origin, name);
        bad = 1;
    }
    bad = bad || read_elements(r, 0, 1, joints) < 0;
    Py_CLEAR(r->materials);
    if (bad) {
        Py_XDECREF(name), Py_XDECREF(links), Py_XDECREF(joints);
        return NULL;
    }
    return record(r->cls_robot, "name", name, "links", links, "joints", joints, NULL);
}

/* urdf_read(data, origin, kit) -> UrdfRobot; kit = (fail, scalar, triple, rgba, the set of
   joint types read, UrdfRobot, UrdfLink, UrdfJoint, UrdfInertial, UrdfGeometry) */
PyObject *py_urdf_read(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[2])
        || PyTuple_GET_SIZE(args[2]) != 10 || !PyAnySet_Check(PyTuple_GET_ITEM(args[2], 4))) {
        PyErr_SetString(PyExc_TypeError, "urdf_read(data: bytes, origin, kit: 10-tuple)");
        return NULL;
    }
    for (int k = 5; k < 10; k++)
        if (!PyType_Check(PyTuple_GET_ITEM(args[2], k))) {
            PyErr_SetString(PyExc_TypeError, "urdf_read: kit[5:] must be the record classes");
            return NULL;
        }
    PyObject *kit = args[2];
    tree_t t = {0};
    t.open = -1;
    if (parse_document(&t, PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]),
                       PyTuple_GET_ITEM(kit, 0), args[1]) < 0) {
        tree_free(&t);
        return NULL;
    }
    PyObject **k = &PyTuple_GET_ITEM(kit, 0);
    reader_t r = {&t, k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], args[1], NULL};
    PyObject *robot = read_robot(&r);
    tree_free(&t);
    return robot;
}

