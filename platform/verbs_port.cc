#include "platform/verbs_port.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {

RegDmabufMrFn VerbsRegDmabufMr() {
  static const RegDmabufMrFn fn = []() -> RegDmabufMrFn {
    if (getenv("NODEPROBE_FORCE_NO_DMABUF") != nullptr) return nullptr;
    // By version: the library loaded may be older than the headers this
    // was built with, and an unversioned lookup could bind another one.
    return reinterpret_cast<RegDmabufMrFn>(
        dlvsym(RTLD_DEFAULT, "ibv_reg_dmabuf_mr", "IBVERBS_1.12"));
  }();
  return fn;
}

bool VerbsHasDmabufMr() { return VerbsRegDmabufMr() != nullptr; }

RegMrIova2Fn VerbsRegMrIova2() {
  static const RegMrIova2Fn fn = []() -> RegMrIova2Fn {
    if (getenv("NODEPROBE_FORCE_NO_IOVA2") != nullptr) return nullptr;
    return reinterpret_cast<RegMrIova2Fn>(
        dlvsym(RTLD_DEFAULT, "ibv_reg_mr_iova2", "IBVERBS_1.8"));
  }();
  return fn;
}

uint32_t IbvMtuToBytes(int ibv_mtu) {
  switch (ibv_mtu) {
    case IBV_MTU_256: return 256;
    case IBV_MTU_512: return 512;
    case IBV_MTU_1024: return 1024;
    case IBV_MTU_2048: return 2048;
    case IBV_MTU_4096: return 4096;
    default: return 0;
  }
}

absl::StatusOr<ibv_context*> OpenVerbsDevice(const std::string& device) {
  int num = 0;
  std::unique_ptr<ibv_device*, void (*)(ibv_device**)> list(ibv_get_device_list(&num),
                                                            ibv_free_device_list);
  if (!list || num == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("no RDMA devices (looking for ", device.empty() ? "any" : device, ")"));
  }
  for (int i = 0; i < num; ++i) {
    if (!device.empty() && device != ibv_get_device_name(list.get()[i])) continue;
    ibv_context* ctx = ibv_open_device(list.get()[i]);
    if (ctx == nullptr) {
      return absl::ErrnoToStatus(errno, absl::StrCat("ibv_open_device ", device));
    }
    return ctx;
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "libibverbs does not list ", device, " (is the provider library installed?)"));
}

absl::StatusOr<uint32_t> QueryActiveMtu(const std::string& device, uint32_t port) {
  absl::StatusOr<ibv_context*> opened = OpenVerbsDevice(device);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<ibv_context, int (*)(ibv_context*)> ctx(*opened, ibv_close_device);
  ibv_port_attr attr{};
  if (int rc = ibv_query_port(ctx.get(), static_cast<uint8_t>(port), &attr); rc != 0) {
    return absl::ErrnoToStatus(rc, absl::StrCat("ibv_query_port ", device, " port ", port));
  }
  return IbvMtuToBytes(attr.active_mtu);
}

}  // namespace nodeprobe::platform
