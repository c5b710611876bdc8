#include "probes/mtu/mtu_chain.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/result_util.h"
#include "probes/mtu/mtu_findings.h"

namespace nodeprobe::mtu {
namespace {

const platform::NetLink* ByIndex(const std::vector<platform::NetLink>& links, int ifindex) {
  for (const auto& l : links) {
    if (l.ifindex == ifindex) return &l;
  }
  return nullptr;
}

void Add(v1::InterfaceChain* chain, const std::string& name, int mtu,
         const std::string& role, const std::string& kind) {
  v1::ChainElement* e = chain->add_elements();
  e->set_name(name);
  e->set_mtu(mtu);
  e->set_role(role);
  e->set_kind(kind);
}

void Mismatch(v1::ProbeResult* result, const std::string& iface, std::string message) {
  AddFinding(result, findings::kMtuChainMismatch.code, iface, std::move(message));
}

}  // namespace

v1::InterfaceChain BuildChain(const std::vector<platform::NetLink>& links,
                              const std::string& iface, const platform::FileTree& sys) {
  v1::InterfaceChain chain;
  chain.set_interface(iface);
  const platform::NetLink* self = nullptr;
  for (const auto& l : links) {
    if (l.name == iface) self = &l;
  }
  if (self == nullptr) return chain;  // no elements: not in this namespace
  Add(&chain, self->name, self->mtu, "interface", self->kind);
  // Lower devices, down to the physical one (bounded: chains are short).
  const platform::NetLink* cur = self;
  for (int depth = 0; depth < 8 && cur->link_ifindex != 0 && !cur->link_elsewhere; ++depth) {
    const platform::NetLink* lower = ByIndex(links, cur->link_ifindex);
    if (lower == nullptr || lower == cur) break;
    Add(&chain, lower->name, lower->mtu, cur->kind == "veth" ? "veth peer" : "lower",
        lower->kind);
    if (cur->kind == "veth") break;  // the peer points back
    cur = lower;
  }
  // Master and its members.
  if (const platform::NetLink* master = ByIndex(links, self->master_ifindex)) {
    Add(&chain, master->name, master->mtu, "master", master->kind);
    for (const auto& l : links) {
      if (l.master_ifindex == master->ifindex && l.ifindex != self->ifindex) {
        Add(&chain, l.name, l.mtu, "member", l.kind);
      }
    }
  }
  // Members when the interface itself is a bond or bridge.
  for (const auto& l : links) {
    if (l.master_ifindex == self->ifindex) Add(&chain, l.name, l.mtu, "member", l.kind);
  }
  // An SR-IOV VF's physical function (it may live in another namespace, so
  // its MTU is read from sysfs).
  const std::string physfn = absl::StrCat("class/net/", iface, "/device/physfn/net");
  if (absl::StatusOr<std::vector<std::string>> pfs = sys.ListDir(physfn); pfs.ok()) {
    for (const std::string& pf : *pfs) {
      int mtu = 0;
      absl::StatusOr<std::string> v = sys.ReadValue(absl::StrCat(physfn, "/", pf, "/mtu"));
      if (v.ok() && absl::SimpleAtoi(*v, &mtu)) Add(&chain, pf, mtu, "physical function", "");
    }
  }
  return chain;
}

void JudgeChain(const v1::InterfaceChain& chain, std::optional<int> expected_mtu,
                std::optional<int> roce_active_mtu, v1::ProbeResult* result) {
  const std::string& iface = chain.interface();
  if (chain.elements_size() == 0) {
    AddFinding(result, findings::kMtuInterfaceMissing.code, iface,
               absl::StrCat("interface ", iface, " is not in this network namespace"));
    return;
  }
  const v1::ChainElement& top = chain.elements(0);
  const v1::ChainElement* master = nullptr;
  std::vector<const v1::ChainElement*> members;
  for (const v1::ChainElement& e : chain.elements()) {
    if (e.role() == "lower" && top.mtu() > e.mtu()) {
      Mismatch(result, iface, absl::StrCat(top.kind().empty() ? "" : top.kind() + " ",
                                           iface, " has MTU ", top.mtu(), " but its lower device ",
                                           e.name(), " has ", e.mtu(),
                                           ": larger packets are dropped"));
    }
    if (e.role() == "veth peer" && top.mtu() != e.mtu()) {
      Mismatch(result, iface, absl::StrCat("veth ", iface, " has MTU ", top.mtu(),
                                           " but its peer ", e.name(), " has ", e.mtu(),
                                           ": the smaller end drops larger packets"));
    }
    if (e.role() == "physical function" && top.mtu() > e.mtu()) {
      Mismatch(result, iface, absl::StrCat("VF ", iface, " has MTU ", top.mtu(),
                                           " but its PF ", e.name(), " has ", e.mtu()));
    }
    if (e.role() == "master") master = &e;
    if (e.role() == "member") members.push_back(&e);
  }
  // The interface is a member of `master` (bond/bridge), or is the master.
  const v1::ChainElement& group = master ? *master : top;
  if (master) members.push_back(&top);
  for (const v1::ChainElement* m : members) {
    if (m->mtu() < group.mtu()) {
      Mismatch(result, iface, absl::StrCat(group.kind().empty() ? "" : group.kind() + " ",
                                           group.name(), " has MTU ", group.mtu(),
                                           " but its member ", m->name(), " has ",
                                           m->mtu()));
    } else if (!members.empty() && m->mtu() != members.front()->mtu()) {
      Mismatch(result, iface, absl::StrCat("members of ", group.name(), " differ: ",
                                           members.front()->name(), " ",
                                           members.front()->mtu(), ", ", m->name(), " ",
                                           m->mtu()));
    }
  }
  if (expected_mtu && top.mtu() < *expected_mtu) {
    AddFinding(
        result, findings::kMtuBelowExpected.code, iface,
        absl::StrCat(iface, " has MTU ", top.mtu(), ", the profile expects ", *expected_mtu));
  }
  if (roce_active_mtu && *roce_active_mtu + kRoceV2HeaderBytes > top.mtu()) {
    AddFinding(result, findings::kRoceMtuExceedsNetdev.code, iface,
               absl::StrCat("RoCE active MTU ", *roce_active_mtu, " + ", kRoceV2HeaderBytes,
                            " bytes of RoCE v2 headers exceeds ", iface, "'s MTU ", top.mtu()));
  }
}

}  // namespace nodeprobe::mtu
