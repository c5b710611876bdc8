#include "platform/lldp_neighbors.h"

#include <lldpctl.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

std::string Str(lldpctl_atom_t* atom, lldpctl_key_t key) {
  const char* s = lldpctl_atom_get_str(atom, key);
  return s != nullptr ? s : "";
}

}  // namespace

std::string LldpdSocket() {
  const char* env = getenv("NODEPROBE_LLDPD_SOCKET");
  return env != nullptr && *env ? env : lldpctl_get_default_transport();
}

absl::StatusOr<std::vector<CableNeighbor>> ReadLldpNeighbors(const std::string& socket) {
  lldpctl_conn_t* conn = lldpctl_new_name(socket.c_str(), nullptr, nullptr, nullptr);
  if (conn == nullptr) return absl::ResourceExhaustedError("liblldpctl: out of memory");
  std::vector<CableNeighbor> out;
  lldpctl_atom_t* ifaces = lldpctl_get_interfaces(conn);
  if (ifaces == nullptr) {
    const std::string why = lldpctl_last_strerror(conn);
    lldpctl_release(conn);
    return absl::UnavailableError(absl::StrCat("cannot read lldpd at ", socket, ": ", why,
                                               " (is lldpd running?)"));
  }
  lldpctl_atom_t* iface = nullptr;
  lldpctl_atom_foreach(ifaces, iface) {
    lldpctl_atom_t* port = lldpctl_get_port(iface);
    if (port == nullptr) continue;
    lldpctl_atom_t* neighbors = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
    lldpctl_atom_t* neighbor = nullptr;
    if (neighbors != nullptr) {
      lldpctl_atom_foreach(neighbors, neighbor) {
        CableNeighbor n;
        n.interface = Str(iface, lldpctl_k_interface_name);
        n.system_name = Str(neighbor, lldpctl_k_chassis_name);
        n.port_id = Str(neighbor, lldpctl_k_port_id);
        n.port_descr = Str(neighbor, lldpctl_k_port_descr);
        n.chassis_id = Str(neighbor, lldpctl_k_chassis_id);
        out.push_back(std::move(n));
      }
      lldpctl_atom_dec_ref(neighbors);
    }
    lldpctl_atom_dec_ref(port);
  }
  lldpctl_atom_dec_ref(ifaces);
  lldpctl_release(conn);
  return out;
}

}  // namespace nodeprobe::platform
