/* Fuzz target: the rollback planner (ac_git_rollback, dry run) on a real
 * repository, fed target trees written object by object from the input,
 * as a hostile agent can: entry names with "..", ".git" aliases, '/'
 * inside a name, links, gitlinks, subtrees, odd modes, unsorted entries.
 * Whatever the planner accepts must be paths git would write.
 *
 * Input: up to 6 records "<kind byte><name>\0<contents>\0". */
#include "ac_error.h"
#include "ac_git.h"
#include "ac_git_paths.h"

#include <git2.h>

#include <ftw.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/agentctl-fuzz-rollback.XXXXXX";
static git_repository *repo;
static ac_git *g;
static git_oid empty_tree;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	ac_git_free(g);
	git_repository_free(repo);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[sizeof(dir) + 16], hash[AC_GIT_HASH_LEN + 1];
	git_treebuilder *tb = NULL;
	FILE *f;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	git_libgit2_init();
	if (git_repository_init(&repo, dir, 0) != 0)
		abort();
	snprintf(path, sizeof(path), "%s/a.txt", dir);
	if (!(f = fopen(path, "w")))
		abort();
	fputs("a\n", f);
	fclose(f);
	if (ac_git_open(&g, dir, NULL) != 0 || ac_git_commit_workspace(hash, g, "base") != 0)
		abort();
	if (git_treebuilder_new(&tb, repo, NULL) != 0 || git_treebuilder_write(&empty_tree, tb) != 0)
		abort();
	git_treebuilder_free(tb);
	return 0;
}

/* Appends one raw tree entry. */
static size_t put_entry(unsigned char *buf, size_t at, size_t cap, const char *mode,
			const char *name, size_t name_len, const git_oid *oid)
{
	size_t mlen = strlen(mode);

	if (at + mlen + 1 + name_len + 1 + GIT_OID_RAWSZ > cap)
		return at;
	memcpy(buf + at, mode, mlen);
	buf[at + mlen] = ' ';
	memcpy(buf + at + mlen + 1, name, name_len);
	buf[at + mlen + 1 + name_len] = '\0';
	memcpy(buf + at + mlen + 2 + name_len, oid->id, GIT_OID_RAWSZ);
	return at + mlen + 2 + name_len + GIT_OID_RAWSZ;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = {"100644", "100755", "120000", "160000", "40000",
					    "100664", "644", "40000"};
	unsigned char buf[8192], sub[256];
	const char *p = (const char *)data, *end = p + size;
	git_odb *odb = NULL;
	git_oid root, parent_oid, child_oid;
	git_signature *sig = NULL;
	git_tree *tree = NULL, *empty = NULL;
	git_commit *parent = NULL;
	const git_commit *parents[1];
	char hash[AC_GIT_HASH_LEN + 1];
	ac_git_rollback_result r;
	size_t len = 0;

	if (git_repository_odb(&odb, repo) != 0)
		abort();
	for (int n = 0; n < 6 && p < end; n++) {
		unsigned kind = (unsigned char)*p++ % (sizeof(modes) / sizeof(modes[0]));
		const char *name = p, *nul = memchr(p, '\0', (size_t)(end - p)), *content, *cend;
		git_oid blob, oid;

		if (!nul)
			break;
		content = nul + 1;
		cend = content < end ? memchr(content, '\0', (size_t)(end - content)) : NULL;
		if (!cend)
			cend = end;
		p = cend < end ? cend + 1 : end;
		if (git_blob_create_from_buffer(&blob, repo, content, (size_t)(cend - content)) != 0)
			continue;
		oid = blob;
		if (kind == 4) { /* a folder holding one file named by the contents */
			size_t sl = put_entry(sub, 0, sizeof(sub), "100644", content,
					      (size_t)(cend - content) < 64 ? (size_t)(cend - content) : 64,
					      &blob);
			if (git_odb_write(&oid, odb, sub, sl, GIT_OBJECT_TREE) != 0)
				continue;
		}
		len = put_entry(buf, len, sizeof(buf), modes[kind], name, (size_t)(nul - name), &oid);
	}
	if (git_odb_write(&root, odb, buf, len, GIT_OBJECT_TREE) != 0 ||
	    git_tree_lookup(&tree, repo, &root) != 0)
		goto done;
	if (git_signature_now(&sig, "f", "f@example.com") != 0 ||
	    git_tree_lookup(&empty, repo, &empty_tree) != 0 ||
	    git_commit_create(&parent_oid, repo, NULL, sig, sig, NULL, "t", tree, 0, NULL) != 0 ||
	    git_commit_lookup(&parent, repo, &parent_oid) != 0)
		goto done;
	parents[0] = parent;
	if (git_commit_create(&child_oid, repo, NULL, sig, sig, NULL, "op", empty, 1, parents) != 0)
		goto done;
	git_oid_tostr(hash, sizeof(hash), &child_oid);
	if (ac_git_rollback(&r, g, hash, "s", "m", true) == 0) {
		for (size_t i = 0; i < r.n; i++)
			if (ac_git_path_problem(r.items[i].path, 0, NULL, 0))
				abort(); /* the planner let an unsafe path through */
		ac_git_rollback_result_free(&r);
	}
done:
	git_commit_free(parent);
	git_tree_free(empty);
	git_tree_free(tree);
	git_signature_free(sig);
	git_odb_free(odb);
	return 0;
}
