#include "capture/archive_check.h"

#include <ATen/ATen.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/compilation_unit.h>
#include <torch/csrc/jit/serialization/unpickler.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>

#include "capture/libtorch_error.h"
#include "io/zip_directory.h"
#include "runtime/aot_crc32.h"

namespace atenaot {
namespace {

namespace jit = torch::jit;

class RecordChecker {
 public:
  RecordChecker(caffe2::serialize::PyTorchStreamReader& reader, std::string path)
      : reader_(reader), path_(std::move(path)), cu_(std::make_shared<jit::CompilationUnit>()) {}

  // Unpickles ARCHIVE.pkl (if present) and checks the storages it references.
  Status Check(const std::string& archive) {
    const std::string pkl = archive + ".pkl";
    if (!reader_.hasRecord(pkl)) return Status::Ok();
    std::tuple<at::DataPtr, size_t> record = reader_.getRecord(pkl);  // no structured binding: lambdas read it
    const size_t size = std::get<1>(record);
    const char* p = static_cast<const char*>(std::get<0>(record).get());
    size_t pos = 0;
    auto read = [&](char* out, size_t n) {
      const size_t k = std::min(n, size - pos);
      std::memcpy(out, p + pos, k);
      pos += k;
      return k;
    };
    auto resolve = [this](const c10::QualifiedName& qn) {
      auto it = classes_.find(qn.qualifiedName());
      if (it == classes_.end()) it = classes_.emplace(qn.qualifiedName(), c10::ClassType::create(qn, cu_)).first;
      return c10::StrongTypePtr(cu_, it->second);
    };
    // Stand-in objects: the state is checked, no __setstate__ runs.
    Status state_status;
    auto load_object = [&](const c10::StrongTypePtr& type, c10::IValue state) {
      if (state_status.ok()) state_status = CheckValue(state, 0);
      return c10::ivalue::Object::create(type, 0);
    };
    auto read_record = [&, archive](const std::string& key) {
      const std::string name = archive + "/" + key;
      std::tuple<at::DataPtr, size_t> rec = reader_.getRecord(name);
      records_[std::get<0>(rec).get()] = {name, std::get<1>(rec)};
      return std::move(std::get<0>(rec));
    };
    c10::IValue top;
    jit::Unpickler u(read, resolve, load_object, read_record, at::Device(at::kCPU));
    top = u.parse_ivalue();
    AOT_RETURN_IF_ERROR(state_status);
    return CheckValue(top, 0);
  }

 private:
  Status CheckValue(const c10::IValue& v, int depth) {
    if (depth > 64) return InvalidArgument("'" + path_ + "': its pickled data nests too deeply");
    if (v.isTensor()) return CheckTensor(v.toTensor());
    if (v.isList()) {
      for (const c10::IValue& e : v.toListRef()) AOT_RETURN_IF_ERROR(CheckValue(e, depth + 1));
    } else if (v.isTuple()) {
      for (const c10::IValue& e : v.toTupleRef().elements()) AOT_RETURN_IF_ERROR(CheckValue(e, depth + 1));
    } else if (v.isGenericDict()) {
      for (const auto& kv : v.toGenericDict()) AOT_RETURN_IF_ERROR(CheckValue(kv.value(), depth + 1));
    }
    return Status::Ok();
  }

  Status CheckTensor(const at::Tensor& t) {
    if (!t.defined() || !t.has_storage()) return Status::Ok();
    const size_t need = t.storage().nbytes();
    auto it = records_.find(t.storage().data());
    if (need == 0 || it == records_.end()) return Status::Ok();
    const size_t have = it->second.second;
    if (have >= need) return Status::Ok();
    return InvalidArgument("cannot load TorchScript archive '" + path_ + "': record " + it->second.first + " holds " +
                           std::to_string(have) + " bytes, but its tensor's storage needs " + std::to_string(need) +
                           ": the file is truncated or corrupt");
  }

  caffe2::serialize::PyTorchStreamReader& reader_;
  std::string path_;
  std::shared_ptr<jit::CompilationUnit> cu_;
  std::map<std::string, c10::ClassTypePtr> classes_;
  std::map<const void*, std::pair<std::string, size_t>> records_;  // data pointer -> record name, size
};

}  // namespace

Status CheckArchiveRecords(const std::string& bytes, const std::string& path) {
  try {
    std::istringstream in(bytes);
    caffe2::serialize::PyTorchStreamReader reader(&in);
    AOT_ASSIGN_OR_RETURN(std::vector<ZipEntry> entries, ReadZipDirectory(bytes));
    for (const ZipEntry& e : entries) {
      const size_t slash = e.name.find('/');  // records sit under the archive's top directory
      const std::string record = slash == std::string::npos ? e.name : e.name.substr(slash + 1);
      if (record.empty() || record.back() == '/' || !reader.hasRecord(record)) continue;
      auto [data, size] = reader.getRecord(record);
      if (aot__crc32(0, data.get(), size) != e.crc32)
        return InvalidArgument("cannot load TorchScript archive '" + path + "': record " + record +
                               " fails its CRC-32 check: the file is corrupt");
    }
    RecordChecker checker(reader, path);
    AOT_RETURN_IF_ERROR(checker.Check("data"));
    return checker.Check("constants");
  } catch (const std::exception& e) {
    return InvalidArgument("cannot load TorchScript archive '" + path + "': " + LibTorchMessage(e));
  }
}

}  // namespace atenaot
