# Install layout and the Debian package (included from the top CMakeLists.txt).
#
#   <prefix>/bin/sprof
#   <prefix>/share/sprof/*.sp                         stdlib scripts, run by name
#   <prefix>/share/man/man1/sprof.1.gz                from docs/sprof.1
#   <prefix>/share/doc/sprof/                         README, docs, examples, copyright, changelog
#   <prefix>/share/bash-completion/completions/sprof
#   <prefix>/share/zsh/vendor-completions/_sprof
#   /etc/sprof/sprof.env, /lib/systemd/system/sprof.service   (the .deb: prefix /usr;
#                     elsewhere <prefix>/etc/sprof, <prefix>/lib/systemd/system)
#
# `cpack -G DEB` in the build folder packages the same tree under /usr. LLVM
# is linked in statically, so the package depends only on the shared
# libraries dpkg-shlibdeps finds (libbpf1, libelf1, libzstd1, zlib1g, libc6,
# libstdc++6, libtinfo6, ...). Man page and changelog are gzipped (-n: no
# timestamp) as Debian policy asks. glibc's profiler is also named sprof: the
# package diverts its /usr/bin/sprof and man page (dist/deb/preinst, postrm).
find_program(GZIP gzip REQUIRED)
set(SP_DIST_GZ ${CMAKE_BINARY_DIR}/dist)
foreach(pair "docs/sprof.1:sprof.1.gz" "dist/changelog:changelog.gz")
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 src)
  list(GET pair 1 gz)
  add_custom_command(OUTPUT ${SP_DIST_GZ}/${gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SP_DIST_GZ}
    COMMAND ${GZIP} -9nc ${CMAKE_SOURCE_DIR}/${src} > ${SP_DIST_GZ}/${gz}
    DEPENDS ${CMAKE_SOURCE_DIR}/${src} COMMENT "gzip ${src}")
  list(APPEND SP_DIST_GZ_FILES ${SP_DIST_GZ}/${gz})
endforeach()
add_custom_target(sprof_dist_gz ALL DEPENDS ${SP_DIST_GZ_FILES})

install(TARGETS sprof RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# executable: they start with #!/usr/bin/env sprof
install(PROGRAMS ${SP_STDLIB} DESTINATION ${CMAKE_INSTALL_DATADIR}/sprof)
install(FILES ${SP_DIST_GZ}/sprof.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES README.md docs/language.md docs/probes.md docs/output.md docs/fleet.md dist/copyright
              ${SP_DIST_GZ}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES examples/busy.c examples/busy.sp DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(FILES dist/sprof.bash RENAME sprof
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES dist/_sprof DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
# The service (docs/fleet.md): its unit and settings belong in /etc and /lib
# when sprof is /usr/bin/sprof (the .deb; cpack installs with prefix /usr into
# DESTDIR, which file(INSTALL) adds), else under the prefix, so `cmake --install --prefix DIR` never
# writes outside DIR.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(sp_etc /etc/sprof)
    set(sp_unit /lib/systemd/system)
  else()
    set(sp_etc \${CMAKE_INSTALL_PREFIX}/etc/sprof)
    set(sp_unit \${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
  endif()
  file(INSTALL ${CMAKE_SOURCE_DIR}/dist/service/sprof.env DESTINATION \"\${sp_etc}\")
  file(INSTALL ${CMAKE_SOURCE_DIR}/dist/service/sprof.service DESTINATION \"\${sp_unit}\")
")

# --- cpack -G DEB ----------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sprof)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CONTACT "sprof developers <dev@sprof.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "scriptable eBPF profiler with a bpftrace-like language")
# The synopsis comes from the summary; this is the long description only.
# No line may start with '.' (a control statement in debian/control).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "sprof compiles bpftrace-style probe scripts to BPF in-process through LLVM
and runs them with libbpf. Its main job is profiling: it samples user and
kernel stacks at a fixed rate, unwinds code without frame pointers from the
binaries' .eh_frame tables in BPF, and symbolizes stacks even after a process
exits. Reports come as bpftrace-like text, JSON, folded stacks, SVG flame
graphs, pprof and speedscope files. Probes: profile, interval, software and
hardware perf events, uprobes, USDT, tracepoints, raw tracepoints, kprobes.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# opened with dlopen (runtime/store/http.c), so shlibdeps cannot see it
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libcap2-bin")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# glibc's own sprof (libc-devtools, manpages) is diverted to sprof.glibc while
# this package is installed: see dist/deb/preinst.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/dist/deb/preinst
    ${CMAKE_SOURCE_DIR}/dist/deb/postrm ${CMAKE_SOURCE_DIR}/dist/deb/conffiles)
include(CPack)
