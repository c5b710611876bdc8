# Install layout and the Debian package: `cpack -G DEB` in a build tree
# (tests/deploy: PackageContentsAndUnits). Libraries a package needs are
# found by dpkg-shlibdeps from the binary; CUDA, NCCL and NVML are loaded
# with dlopen when present, so they are no dependency.
include_guard(GLOBAL)

# nodeprobe-agent beside nodeprobe: `nodeprobe agent` execs it from there.
install(TARGETS nodeprobe nodeprobe-agent RUNTIME DESTINATION bin)
install(FILES ${PROJECT_SOURCE_DIR}/systemd/nodeprobe-agent.service
              ${PROJECT_SOURCE_DIR}/systemd/nodeprobe-coordinator.service
              ${PROJECT_SOURCE_DIR}/systemd/nodeprobe-sweep.service
              ${PROJECT_SOURCE_DIR}/systemd/nodeprobe-sweep.timer
        DESTINATION /lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/nodeprobe.yaml
              ${PROJECT_SOURCE_DIR}/deploy/slurm/slurm-health.conf
        DESTINATION /etc/nodeprobe)
# Slurm's HealthCheckProgram/Epilog and TaskProlog (deploy/slurm), named in
# slurm.conf.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/slurm/nodeprobe-slurm-health
                 ${PROJECT_SOURCE_DIR}/deploy/slurm/nodeprobe-preflight-task-prolog
        DESTINATION lib/nodeprobe)
install(FILES ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION share/doc/nodeprobe)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/prometheus/nodeprobe-rules.yml
              ${PROJECT_SOURCE_DIR}/deploy/grafana/nodeprobe-fleet.json
        DESTINATION share/doc/nodeprobe/examples)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nodeprobe)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "nodeprobe developers <nodeprobe@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RDMA/NCCL validation agent for GPU nodes: PCIe/NUMA locality, GPUDirect, MTU, transfers, NCCL")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Providers make the verbs library find the HCAs; iproute2 is what the
# operator uses beside it (netns names under /var/run/netns).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "prometheus-node-exporter")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/postinst
    ${PROJECT_SOURCE_DIR}/packaging/postrm ${PROJECT_SOURCE_DIR}/packaging/conffiles)
set(CPACK_STRIP_FILES ON)  # the debug info stays in the build tree
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
