# Man pages from each command's own --help (help2man; section 1, gzipped as
# Debian ships them), so the page never says other than the binary does.
# `man nodeprobe` and `man nodeprobe-run` etc. after the package installs.
include_guard(GLOBAL)
find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(STATUS "help2man not found: no man pages (scripts/setup.sh installs it)")
  return()
endif()

# subcommand|what its page is about
set(NP_MAN_COMMANDS
  "|validate GPU nodes and the RDMA fabric between them"
  "run|run a stage's probes and print the verdict"
  "probes|list the probes"
  "findings|list every finding code"
  "transfer|measure bandwidth and latency to a peer"
  "mtu|measure the path MTU from the workload's namespace"
  "nccl-log|read what NCCL did from its debug log"
  "nccl|run NCCL collectives over this node's GPUs"
  "coordinator|run the coordinator"
  "agent|run the node agent"
  "status|ask this node's agent how it is"
  "runs|list stored runs"
  "report|print a stored run or a campaign"
  "fleet|agents, last verdicts and version drift"
  "evidence|write a run's evidence bundle"
  "slurm-health|Slurm health check: drain on FAIL, resume after"
  "preflight|check what a job will meet, from inside its container"
  "workload|plan the workload stage's job shapes")
set(NP_MAN_PAGES)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/man)
# nodeprobe-findings(1) also lists the finding table itself.
set(NP_FINDINGS_SECTION ${PROJECT_BINARY_DIR}/man/findings.h2m)
add_custom_command(
  OUTPUT ${NP_FINDINGS_SECTION}
  COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/findings_man_section.sh $<TARGET_FILE:nodeprobe>
          ${NP_FINDINGS_SECTION}
  DEPENDS nodeprobe ${PROJECT_SOURCE_DIR}/cmake/findings_man_section.sh
  COMMENT "finding codes for nodeprobe-findings.1"
  VERBATIM)
foreach(entry ${NP_MAN_COMMANDS})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 sub)
  list(GET parts 1 about)
  if(sub STREQUAL "")
    set(page nodeprobe.1)
    set(help_option "--help")
  else()
    set(page nodeprobe-${sub}.1)
    set(help_option "${sub} --help")
  endif()
  set(include_args)
  set(include_deps)
  if(sub STREQUAL "findings")
    set(include_args "--include=${NP_FINDINGS_SECTION}")
    set(include_deps ${NP_FINDINGS_SECTION})
  endif()
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/man/${page}.gz
    COMMAND ${HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
            "--help-option=${help_option}" "--name=${about}" ${include_args}
            --output=${PROJECT_BINARY_DIR}/man/${page} $<TARGET_FILE:nodeprobe>
    COMMAND gzip -9nf ${PROJECT_BINARY_DIR}/man/${page}
    DEPENDS nodeprobe ${include_deps}
    COMMENT "man page ${page}"
    VERBATIM)
  list(APPEND NP_MAN_PAGES ${PROJECT_BINARY_DIR}/man/${page}.gz)
endforeach()
add_custom_target(man_pages ALL DEPENDS ${NP_MAN_PAGES})
install(FILES ${NP_MAN_PAGES} DESTINATION share/man/man1)
