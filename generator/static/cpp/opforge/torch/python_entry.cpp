// opforge PyTorch extension, Python entry (the module {{entry}}, built beside
// {{library}} when CMake finds Python's headers and libtorch_python).
//
// Why: torch.ops.<ns>.<op>(...) matches its Python arguments against the schema generically at every
// call, which costs more than the op itself on small tensors (about 1.6 times torch.relu's call).
// An Op of this module is what torch's own generated bindings are: the argument kinds and defaults
// are read from the schema once, each call converts its arguments by kind and calls the dispatcher,
// so autograd, no_grad, inference mode, vmap and the rest behave as through torch.ops.
// Anything it does not take plainly (a Tensor subclass, an active torch function mode, an argument
// of another type, a missing or repeated one) goes to the fallback it was made with, torch.ops' own
// entry, so behaviour and error messages there stay torch's. The module links no op: it finds
// each one by name in the dispatcher, so it is the same file for every project.
#include <Python.h>
#include <structmember.h>

#include <ATen/PythonTorchFunctionTLS.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/version.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

/** The argument types opforge's schemas use (generator/emit/torch/schema.ts). */
enum class Kind : std::uint8_t { kTensor, kOptionalTensor, kTensors, kBool, kInt, kFloat, kStr, kInts, kFloats };

struct Signature {
  c10::OperatorHandle handle;
  std::vector<Kind> kinds;
  std::vector<PyObject*> names;  // interned argument names, owned
  std::vector<c10::IValue> defaults;
  std::vector<bool> hasDefault;
  std::size_t positional = 0;    // arguments before the schema's `*`
  std::size_t returns = 0;
  bool usable = false;           // every argument and return of a kind above
};

struct OpObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* fallback;
  Signature* sig;
};

bool kindOf(const c10::TypePtr& t, Kind* out) {
  switch (t->kind()) {
    case c10::TypeKind::TensorType: *out = Kind::kTensor; return true;
    case c10::TypeKind::BoolType: *out = Kind::kBool; return true;
    case c10::TypeKind::IntType: *out = Kind::kInt; return true;
    case c10::TypeKind::FloatType: *out = Kind::kFloat; return true;
    case c10::TypeKind::StringType: *out = Kind::kStr; return true;
    case c10::TypeKind::OptionalType: {
      const auto elem = t->containedTypes().at(0);
      if (elem->kind() != c10::TypeKind::TensorType) return false;
      *out = Kind::kOptionalTensor;
      return true;
    }
    case c10::TypeKind::ListType: {
      const auto elem = t->containedTypes().at(0)->kind();
      if (elem == c10::TypeKind::TensorType) { *out = Kind::kTensors; return true; }  // a variadic input
      if (elem == c10::TypeKind::IntType) { *out = Kind::kInts; return true; }
      if (elem == c10::TypeKind::FloatType) { *out = Kind::kFloats; return true; }
      return false;
    }
    default: return false;
  }
}

bool torchFunctionModeActive() {
#if TORCH_VERSION_MAJOR >= 2
  return at::impl::torch_function_mode_enabled();
#else
  return at::impl::function_mode_enabled();
#endif
}

bool isSequence(PyObject* v) { return PyList_CheckExact(v) || PyTuple_CheckExact(v); }

/** An exact int (bool is a subclass: not taken, as torch.ops refuses True for an int). */
bool toInt(PyObject* v, std::int64_t* out) {
  if (!PyLong_CheckExact(v)) return false;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow != 0 || (x == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  *out = x;
  return true;
}

bool toDouble(PyObject* v, double* out) {
  if (PyFloat_CheckExact(v)) {
    *out = PyFloat_AS_DOUBLE(v);
    return true;
  }
  std::int64_t i = 0;
  if (!toInt(v, &i)) return false;
  *out = static_cast<double>(i);
  return true;
}

/** One argument as the dispatcher's IValue; false: not a plain value of that kind. */
bool convert(Kind kind, PyObject* v, c10::IValue* out) {
  switch (kind) {
    case Kind::kTensor:
      if (!THPVariable_CheckExact(v)) return false;  // Parameter counts as exact; subclasses do not
      *out = THPVariable_Unpack(v);
      return true;
    case Kind::kOptionalTensor:
      if (v == Py_None) {
        *out = c10::IValue();
        return true;
      }
      return convert(Kind::kTensor, v, out);
    case Kind::kTensors: {
      if (!isSequence(v)) return false;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
      PyObject** items = PySequence_Fast_ITEMS(v);
      c10::List<at::Tensor> list;
      list.reserve(static_cast<std::size_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!THPVariable_CheckExact(items[i])) return false;
        list.push_back(THPVariable_Unpack(items[i]));
      }
      *out = std::move(list);
      return true;
    }
    case Kind::kBool:
      if (!PyBool_Check(v)) return false;
      *out = v == Py_True;
      return true;
    case Kind::kInt: {
      std::int64_t x = 0;
      if (!toInt(v, &x)) return false;
      *out = x;
      return true;
    }
    case Kind::kFloat: {
      double x = 0;
      if (!toDouble(v, &x)) return false;
      *out = x;
      return true;
    }
    case Kind::kStr: {
      if (!PyUnicode_CheckExact(v)) return false;
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(v, &n);
      if (s == nullptr) {
        PyErr_Clear();
        return false;
      }
      *out = std::string(s, static_cast<std::size_t>(n));
      return true;
    }
    case Kind::kInts:
    case Kind::kFloats: {
      if (!isSequence(v)) return false;
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
      PyObject** items = PySequence_Fast_ITEMS(v);
      if (kind == Kind::kInts) {
        c10::List<std::int64_t> list;
        list.reserve(static_cast<std::size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i) {
          std::int64_t x = 0;
          if (!toInt(items[i], &x)) return false;
          list.push_back(x);
        }
        *out = std::move(list);
      } else {
        c10::List<double> list;
        list.reserve(static_cast<std::size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i) {
          double x = 0;
          if (!toDouble(items[i], &x)) return false;
          list.push_back(x);
        }
        *out = std::move(list);
      }
      return true;
    }
  }
  return false;
}

PyObject* fallback(OpObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) {
  return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

PyObject* callOp(PyObject* obj, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<OpObject*>(obj);
  const Signature& sig = *self->sig;
  const auto nargs = static_cast<std::size_t>(PyVectorcall_NARGS(nargsf));
  if (!sig.usable || nargs > sig.positional || torchFunctionModeActive()) {
    return fallback(self, args, nargsf, kwnames);
  }
  const std::size_t n = sig.kinds.size();
  c10::SmallVector<PyObject*, 16> given(n, nullptr);
  for (std::size_t i = 0; i < nargs; ++i) given[i] = args[i];
  const std::size_t nkw = kwnames == nullptr ? 0 : static_cast<std::size_t>(PyTuple_GET_SIZE(kwnames));
  for (std::size_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, static_cast<Py_ssize_t>(k));
    std::size_t j = 0;
    while (j < n && sig.names[j] != key) ++j;  // keyword names are interned: identity first
    if (j == n) {
      for (j = 0; j < n && PyUnicode_Compare(sig.names[j], key) != 0; ++j) {}
    }
    if (j == n || given[j] != nullptr) return fallback(self, args, nargsf, kwnames);
    given[j] = args[nargs + k];
  }
  torch::jit::Stack stack;
  stack.reserve(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (given[j] == nullptr) {
      if (!sig.hasDefault[j]) return fallback(self, args, nargsf, kwnames);
      stack.push_back(sig.defaults[j]);
      continue;
    }
    c10::IValue v;
    if (!convert(sig.kinds[j], given[j], &v)) return fallback(self, args, nargsf, kwnames);
    stack.push_back(std::move(v));
  }
  HANDLE_TH_ERRORS
  {
    // As torch's bindings do: other Python threads run while the kernel does.
    struct ReleaseGil {
      PyThreadState* state = PyEval_SaveThread();
      ~ReleaseGil() { PyEval_RestoreThread(state); }
    } release;
    sig.handle.callBoxed(&stack);
  }
  if (sig.returns == 1) return THPVariable_Wrap(std::move(stack[0]).toTensor());
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(sig.returns));
  if (tuple == nullptr) return nullptr;
  for (std::size_t i = 0; i < sig.returns; ++i) {
    PyObject* t = THPVariable_Wrap(std::move(stack[i]).toTensor());
    if (t == nullptr) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), t);
  }
  return tuple;
  END_HANDLE_TH_ERRORS
}

/** Op(qualified_name, fallback): the dispatcher's op `ns::name` (overload ""), called by schema. */
PyObject* opNew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  const char* name = nullptr;
  PyObject* fb = nullptr;
  static const char* keywords[] = {"name", "fallback", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sO:Op", const_cast<char**>(keywords), &name, &fb)) return nullptr;
  if (!PyCallable_Check(fb)) {
    PyErr_SetString(PyExc_TypeError, "Op: fallback must be callable");
    return nullptr;
  }
  HANDLE_TH_ERRORS
  const auto handle = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  auto sig = std::make_unique<Signature>(Signature{handle, {}, {}, {}, {}, 0, 0, true});
  const c10::FunctionSchema& schema = handle.schema();
  for (const c10::Argument& a : schema.arguments()) {
    Kind k = Kind::kTensor;
    sig->usable = sig->usable && kindOf(a.type(), &k) && !a.is_out();
    sig->kinds.push_back(k);
    sig->names.push_back(PyUnicode_InternFromString(a.name().c_str()));
    sig->hasDefault.push_back(a.default_value().has_value());
    sig->defaults.push_back(a.default_value().has_value() ? *a.default_value() : c10::IValue());
    if (!a.kwarg_only()) sig->positional = sig->kinds.size();
  }
  for (const c10::Argument& r : schema.returns()) {
    sig->usable = sig->usable && r.type()->kind() == c10::TypeKind::TensorType;
  }
  sig->returns = schema.returns().size();
  sig->usable = sig->usable && sig->returns > 0;
  auto* self = reinterpret_cast<OpObject*>(type->tp_alloc(type, 0));
  if (self == nullptr) {
    for (PyObject* n : sig->names) Py_XDECREF(n);
    return nullptr;
  }
  self->vectorcall = callOp;
  Py_INCREF(fb);
  self->fallback = fb;
  self->sig = sig.release();
  return reinterpret_cast<PyObject*>(self);
  END_HANDLE_TH_ERRORS
}

void opDealloc(PyObject* obj) {
  auto* self = reinterpret_cast<OpObject*>(obj);
  Py_XDECREF(self->fallback);
  if (self->sig != nullptr) {
    for (PyObject* n : self->sig->names) Py_XDECREF(n);
    delete self->sig;
  }
  PyTypeObject* type = Py_TYPE(obj);
  type->tp_free(obj);
  Py_DECREF(type);  // a heap type's instances own a reference to it
}

PyObject* opUsable(PyObject* obj, void*) { return PyBool_FromLong(reinterpret_cast<OpObject*>(obj)->sig->usable); }

PyObject* opFallback(PyObject* obj, void*) {
  PyObject* fb = reinterpret_cast<OpObject*>(obj)->fallback;
  Py_INCREF(fb);
  return fb;
}

/**
 * What the Op does not have itself (__name__, __qualname__, ...) is read from its fallback: where it
 * stands in for torch.ops' builtin (OpOverloadPacket._op, whose dunder lookups the packet forwards
 * to it), code reading those attributes sees what it saw before.
 */
PyObject* opGetAttr(PyObject* obj, PyObject* name) {
  PyObject* r = PyObject_GenericGetAttr(obj, name);
  if (r != nullptr || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
  PyErr_Clear();
  return PyObject_GetAttr(reinterpret_cast<OpObject*>(obj)->fallback, name);
}

PyGetSetDef opGetSet[] = {
    {"usable", opUsable, nullptr, "False when the schema has an argument this entry does not convert (every call then goes to the fallback).", nullptr},
    {"fallback", opFallback, nullptr, "What calls the entry does not take go to (torch.ops' own entry).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMemberDef opMembers[] = {
    // How CPython finds a heap type's vectorcall slot (no tp_vectorcall_offset in a PyType_Spec).
    {"__vectorcalloffset__", T_PYSSIZET, static_cast<Py_ssize_t>(offsetof(OpObject, vectorcall)), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyType_Slot opSlots[] = {
    {Py_tp_new, reinterpret_cast<void*>(opNew)},
    {Py_tp_dealloc, reinterpret_cast<void*>(opDealloc)},
    {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
    {Py_tp_getset, opGetSet},
    {Py_tp_getattro, reinterpret_cast<void*>(opGetAttr)},
    {Py_tp_members, opMembers},
    {Py_tp_doc, const_cast<char*>("Op(name, fallback): calls the dispatcher's op `name` by its schema, else fallback(*args, **kwargs).")},
    {0, nullptr},
};

PyType_Spec opSpec = {"{{entry}}.Op", sizeof(OpObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL, opSlots};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "{{entry}}", "opforge's Python entry to compiled torch ops.", -1,
                         nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit_{{entry}}() {
  PyObject* m = PyModule_Create(&moduleDef);
  if (m == nullptr) return nullptr;
  PyObject* type = PyType_FromSpec(&opSpec);
  if (type == nullptr || PyModule_AddObject(m, "Op", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(m);
    return nullptr;
  }
  return m;
}
