#include "tasks/host_roots.h"

namespace nodeprobe::tasks {

v1::HostRoots ToHostRoots(const platform::HostPaths& paths) {
  v1::HostRoots roots;
  roots.set_sys_root(paths.sys_root);
  roots.set_proc_root(paths.proc_root);
  roots.set_etc_root(paths.etc_root);
  roots.set_topology_xml(paths.topology_xml);
  roots.set_dcbnl_root(paths.dcbnl_root);
  return roots;
}

platform::HostPaths FromHostRoots(const v1::HostRoots& roots) {
  platform::HostPaths paths;
  if (!roots.sys_root().empty()) paths.sys_root = roots.sys_root();
  if (!roots.proc_root().empty()) paths.proc_root = roots.proc_root();
  if (!roots.etc_root().empty()) paths.etc_root = roots.etc_root();
  paths.topology_xml = roots.topology_xml();
  paths.dcbnl_root = roots.dcbnl_root();
  return paths;
}

}  // namespace nodeprobe::tasks
