/* libgit2, loaded when a command first needs git rather than at every
 * process start: linking it pulls krb5, TLS, ssh, pcre2 and http_parser in
 * with their constructors (1.7 of agentctl's 2.5 ms start), and only the
 * git commands use it. The technique is systemd's for optional libraries:
 * one list of the functions used, a pointer per function typed from
 * <git2.h> (which still gives the types and constants), filled by dlsym.
 * Call sites write sym_git_<name>(...). Not a public header; not for the
 * tests, which link libgit2 themselves. */
#ifndef AC_LIBGIT2_H
#define AC_LIBGIT2_H

#include <git2.h>

/* Every libgit2 function agentctl calls; a new call needs its name here. */
#define AC_LIBGIT2_FUNCTIONS(X) \
	X(git_blob_free) \
	X(git_blob_lookup) \
	X(git_blob_rawcontent) \
	X(git_blob_rawsize) \
	X(git_buf_dispose) \
	X(git_commit_create) \
	X(git_commit_free) \
	X(git_commit_id) \
	X(git_commit_lookup) \
	X(git_commit_lookup_prefix) \
	X(git_commit_message) \
	X(git_commit_parent) \
	X(git_commit_parentcount) \
	X(git_commit_tree) \
	X(git_diff_free) \
	X(git_diff_get_delta) \
	X(git_diff_num_deltas) \
	X(git_diff_options_init) \
	X(git_diff_tree_to_tree) \
	X(git_error_last) \
	X(git_index_add) \
	X(git_index_add_all) \
	X(git_index_add_bypath) \
	X(git_index_conflict_get) \
	X(git_index_conflict_iterator_free) \
	X(git_index_conflict_iterator_new) \
	X(git_index_conflict_next) \
	X(git_index_conflict_remove) \
	X(git_index_entrycount) \
	X(git_index_free) \
	X(git_index_get_byindex) \
	X(git_index_get_bypath) \
	X(git_index_has_conflicts) \
	X(git_index_open) \
	X(git_index_read) \
	X(git_index_read_tree) \
	X(git_index_remove_bypath) \
	X(git_index_write) \
	X(git_index_write_tree) \
	X(git_index_write_tree_to) \
	X(git_libgit2_init) \
	X(git_libgit2_opts) \
	X(git_libgit2_shutdown) \
	X(git_merge_options_init) \
	X(git_merge_trees) \
	X(git_oid_equal) \
	X(git_oid_fromstrn) \
	X(git_oid_tostr) \
	X(git_patch_free) \
	X(git_patch_from_diff) \
	X(git_patch_get_delta) \
	X(git_patch_line_stats) \
	X(git_patch_to_buf) \
	X(git_reference_name_to_id) \
	X(git_repository_commondir) \
	X(git_repository_free) \
	X(git_repository_index) \
	X(git_repository_init) \
	X(git_repository_open_ext) \
	X(git_repository_path) \
	X(git_repository_state) \
	X(git_repository_workdir) \
	X(git_signature_default) \
	X(git_signature_free) \
	X(git_signature_now) \
	X(git_status_byindex) \
	X(git_status_list_entrycount) \
	X(git_status_list_free) \
	X(git_status_list_new) \
	X(git_status_options_init) \
	X(git_tree_entry_bypath) \
	X(git_tree_entry_filemode) \
	X(git_tree_entry_free) \
	X(git_tree_entry_id) \
	X(git_tree_free) \
	X(git_tree_id) \
	X(git_tree_lookup)

#define AC_LIBGIT2_DECLARE(name) extern __typeof__(name) *sym_##name;
AC_LIBGIT2_FUNCTIONS(AC_LIBGIT2_DECLARE)
#undef AC_LIBGIT2_DECLARE

/* Loads libgit2 (the soname the build linked against) and fills every
 * sym_git_* pointer, once per process; thread-safe, cheap after the first
 * call. 0, or AC_ENOTSUP naming the library and why it could not be
 * loaded (absent, or lacking a function): then no sym_git_* may be
 * called. */
int ac_libgit2_load(void);

#endif
