# Writes the linker version script of libagentctl.so: the functions that the
# public headers declare are global, everything else is local, so internal
# helpers are no part of the library's ABI.
#   cmake -DHEADER_DIR=include/agentctl -DOUT=agentctl.map -P agentctl-exports.cmake
# A declaration is a line that starts with its return type and names the
# function, "int ac_session_load(" or "const ac_x *const *ac_x_list(", as
# every public header writes them; static inline helpers are left out. tests/e2e/install.sh checks the result
# against the compiler's own list of the headers' prototypes.
file(GLOB headers ${HEADER_DIR}/*.h ${HEADER_DIR}/*.h.in ${HEADER_DIR}/sys/*.h)
list(SORT headers)
set(exports "")
foreach(header ${headers})
  file(STRINGS ${header} declarations REGEX "^[a-z][a-z0-9_ *]*[ *]ac_[a-z0-9_]+\\(")
  foreach(declaration ${declarations})
    if(NOT declaration MATCHES "^static ")
      string(REGEX MATCH "ac_[a-z0-9_]+\\(" name "${declaration}")
      string(REPLACE "(" "" name "${name}")
      string(APPEND exports "    ${name};\n")
    endif()
  endforeach()
endforeach()
file(WRITE ${OUT}.new "{\n  global:\n${exports}  local: *;\n};\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
file(REMOVE ${OUT}.new)
