/* Argument checks every backend shares (private; defined in
 * ac_backend_fs.c beside ac_backend_id_check()). */
#ifndef AC_BACKEND_CHECK_H
#define AC_BACKEND_CHECK_H

#include "ac_backend_sys.h"
#include "ac_buf.h"

#include <jansson.h>
#include <stdint.h>
#include <stddef.h>

/* 0 when a new session may be made with these ids: tenant and (when not
 * NULL) user, agent and session_id pass ac_backend_id_check(); AC_EINVAL
 * naming the one at fault otherwise. */
int ac_backend_new_session_check(const char *tenant, const char *user, const char *agent,
				 const char *session_id);

/* 0 when doc may be created as tenant's session (session.create_document):
 * an object whose id and tenant pass ac_backend_id_check(), whose
 * metadata.tenantId is tenant and whose conversationHistory (when there)
 * passes ac_backend_messages_check(); AC_EINVAL naming what is at fault
 * otherwise. Defined in ac_backend_fs_copy.c. */
int ac_backend_document_check(const char *tenant, const json_t *doc);

/* AC_ENOTFOUND, "memo TENANT/OWNER/SCOPE/NAME: no such document": the
 * error every store gives for a memo that is not there (defined in
 * ac_backend_fs_files.c). */
int ac_backend_memo_missing(const char *tenant, const char *owner, const char *scope,
			    const char *name);

/* 0 when messages is an array of objects; AC_EINVAL naming the first
 * element at fault otherwise. */
int ac_backend_messages_check(const json_t *messages);

/* Called with the object whose "content" is a tool result's output (a
 * tool_result block, or a role "tool" message) and the tool-call id. */
typedef int (*ac_backend_result_fn)(json_t *holder, const char *id, void *ctx);

/* Calls fn for each tool result in messages, in order; stops at the first
 * non-zero return, which it returns. */
int ac_backend_each_tool_result(json_t *messages, ac_backend_result_fn fn, void *ctx);

/* A tool output as an artifact stores it: a string's own bytes, anything
 * else as compact JSON. Allocated (NUL-terminated); NULL when out of memory. */
char *ac_backend_tool_output(const json_t *content, size_t *out_len);

/* The text that replaces an output moved to artifact id:
 * "[artifact ID: N bytes; agentctl artifact show SESSION ID]". */
int ac_backend_artifact_reference(ac_buf *out, const char *id, uint64_t bytes,
				  const char *session_id);

/* 0 when opts (and its compact member, and that one's write) are of this
 * library's version; AC_EINVAL naming the struct otherwise. NULL: 0. */
int ac_backend_compact_options_check(const ac_backend_compact_options *opts);

/* The start every compact_if_needed shares: *opts and *out point at
 * defaults and ignored when NULL, *out is zeroed, the options' versions,
 * the ids and the fraction are checked. 0 or AC_EINVAL. */
int ac_backend_compact_begin(const ac_backend_compact_options **opts,
			     ac_backend_compact_options *defaults,
			     ac_backend_compact_result **out, ac_backend_compact_result *ignored,
			     const char *tenant, const char *session_id);

#endif
