/* The ops scenario: `agentctl ops rollback` and `ops revert` of a real
 * git repository, killed at any point and finished or undone after, as a
 * user would. libgit2 writes the repository itself (not through the
 * seam), so this scenario runs over the kernel's file system in a
 * temporary folder, with real libgit2, and kills real processes: each
 * attempt is a forked process armed to die by SIGKILL at one of its kill
 * points (sim_real_seam.c: agentctl's writes through the seam and
 * libgit2's commits and index writes). The power never fails here.
 *
 * A seed: an agent records 3 to 5 file operations (ac_oplog_record(), a
 * commit each) over six paths (files in folders, an executable, a
 * symbolic link); then two to four campaigns, each: the user's own work
 * (a tracked file edited and not committed, or a new untracked file, or
 * nothing), then a rollback to before one of the operations or a revert
 * of it (the seed picks), attempted until it resolves: after a kill that
 * left the intent (.agent/rollback-intent.json) the user runs the same
 * command again, `--finish` or `--undo` (the seed picks; a refusal that
 * says to finish an undo with --undo is followed); after one that left
 * none, the same command again, unless the log shows it done. While the
 * rollback stands stopped, an agent may write a path outside its plan
 * directly (agentctl refuses its own writers then), which finish and
 * undo must leave as written.
 *
 * The expected states come from a model, not from git: B, the worktree
 * before the campaign; T, what the rollback (the operation's parent
 * state for the paths git tracks, untracked files left) or the revert
 * (B with the operation's changes undone; a path changed since refuses
 * it, the files being one line each) puts there.
 *
 * Holds after every attempt, killed or not:
 * - no intent: the worktree is all B (HEAD at the old commit or one whose
 *   tree is B) or all T (HEAD's tree is T, the log names the rollback),
 *   with no temp file of agentctl's left;
 * - an intent: its snapshot commit holds B exactly (the user's edit and
 *   untracked files included); every path of its plan is B's or T's, and
 *   every other path is B's (the plan leaves out nothing that differs);
 * - no file appears that neither state has;
 * - once resolved, the worktree is exactly B (undone, or a revert refused
 *   as the model says) or exactly T (finished), HEAD's tree the same, no
 *   intent, and the log names the rollback once. */
#include "sim.h"

#include "ac_config.h"
#include "ac_error.h"
#include "ac_fs.h"
#include "ac_oplog.h"
#include "ac_oplog_intent.h"
#include "ac_workspace.h"

#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The paths: the agent's six, then the user's two untracked ones. */
enum { EXEC_PATH = 4, LINK_PATH = 5, AGENT_PATHS = 6, NPATHS = 8, MAX_OPS = 5 };
static const char *const paths[NPATHS] = {"a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "run.sh",
					  "link", "notes/u1.txt", "u2.txt"};

/* A state of the worktree: each path's content (a link's target), or
 * absent. */
typedef struct {
	bool has[NPATHS];
	bool wrong_mode[NPATHS]; /* the executable without its x bit, or the reverse */
	char v[NPATHS][48];
} tree;

typedef enum { RUN, FINISH, UNDO } command;
static const char *const command_names[] = {"run", "--finish", "--undo"};

static char dir[256];
static ac_config *config;
static ac_workspace ws;
static struct {
	char id[40];
	tree before, after;
} ops[MAX_OPS];
static int nops;
static tree worktree;       /* the model's: what the worktree holds now */
static long typical[3];     /* kill points of the last whole attempt of each command */
static int next_version;

/* ---- the real worktree ---------------------------------------------------- */

static void full_path(char *out, size_t size, const char *rel)
{
	if (snprintf(out, size, "%s/%s", dir, rel) >= (int)size)
		abort(); /* the paths are the scenario's own, short */
}

static void make_parents(const char *full)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", full);
	for (char *s = strchr(buf + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(buf, 0755);
		*s = '/';
	}
}

/* Writes path p as t holds it, as an agent or the user would (directly,
 * not through agentctl). */
static void put(const tree *t, int p)
{
	char full[512];
	FILE *f;

	full_path(full, sizeof(full), paths[p]);
	unlink(full);
	if (!t->has[p])
		return;
	make_parents(full);
	if (p == LINK_PATH) {
		if (symlink(t->v[p], full) != 0)
			abort();
		return;
	}
	if (!(f = fopen(full, "w")) || fputs(t->v[p], f) < 0 || fclose(f) != 0)
		abort();
	chmod(full, p == EXEC_PATH ? 0755 : 0644);
}

/* What the worktree holds at the model's paths; *out_extra names a file
 * that is none of them (NULL when none), *out_temps counts agentctl's
 * temp files (".<name>.<pid>.<random>.tmp"). .git and .agent aside. */
static void walk(const char *rel, char *extra, size_t size, int *temps)
{
	char full[512], child[512];
	struct dirent *e;
	DIR *d;

	full_path(full, sizeof(full), rel);
	if (!(d = opendir(full)))
		return;
	while ((e = readdir(d))) {
		struct stat st;
		bool known = false;
		size_t len = strlen(e->d_name);

		/* Agent state at the top: the repository, .agent/, the journal. */
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (!*rel && (!strcmp(e->d_name, ".git") || !strcmp(e->d_name, ".agent") ||
			       !strncmp(e->d_name, "JOURNAL", 7))))
			continue;
		snprintf(child, sizeof(child), "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		full_path(full, sizeof(full), child);
		if (lstat(full, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(child, extra, size, temps);
			continue;
		}
		for (int p = 0; p < NPATHS; p++)
			known = known || !strcmp(paths[p], child);
		if (known)
			continue;
		/* ".<name>.<pid>.<random>.tmp" (a file), "<name>.agentctl-<pid>.tmp"
		 * (a symbolic link) */
		if (len > 4 && !strcmp(e->d_name + len - 4, ".tmp") &&
		    (e->d_name[0] == '.' || strstr(e->d_name, ".agentctl-")))
			(*temps)++;
		else if (!*extra && snprintf(extra, size, "%s", child) >= (int)size)
			extra[size - 4] = extra[size - 3] = extra[size - 2] = '.';
	}
	closedir(d);
}

static void read_worktree(tree *out, char *extra, size_t size, int *temps)
{
	memset(out, 0, sizeof(*out));
	*extra = '\0';
	*temps = 0;
	for (int p = 0; p < NPATHS; p++) {
		char full[512];
		struct stat st;
		ssize_t n;
		FILE *f;

		full_path(full, sizeof(full), paths[p]);
		if (lstat(full, &st) != 0)
			continue;
		out->has[p] = true;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(full, out->v[p], sizeof(out->v[p]) - 1);
			out->v[p][n > 0 ? n : 0] = '\0';
			if (p != LINK_PATH)
				snprintf(out->v[p], sizeof(out->v[p]), "(a symbolic link)");
		} else if (!S_ISREG(st.st_mode) || p == LINK_PATH) {
			snprintf(out->v[p], sizeof(out->v[p]), "(not a %s)",
				 p == LINK_PATH ? "symbolic link" : "file");
		} else if ((f = fopen(full, "r"))) {
			n = (ssize_t)fread(out->v[p], 1, sizeof(out->v[p]) - 1, f);
			out->v[p][n > 0 ? n : 0] = '\0';
			fclose(f);
			out->wrong_mode[p] = (p == EXEC_PATH) != ((st.st_mode & 0100) != 0);
		}
	}
	walk("", extra, size, temps);
}

static bool same_content(const tree *a, const tree *b, int p)
{
	return a->has[p] == b->has[p] && (!a->has[p] || !strcmp(a->v[p], b->v[p]));
}

static bool same_at(const tree *a, const tree *b, int p)
{
	return same_content(a, b, p) && a->wrong_mode[p] == b->wrong_mode[p];
}

/* The first path where a and b differ, or -1; paths marked in skip (may
 * be NULL) aside. */
static int differ_except(const tree *a, const tree *b, const bool *skip)
{
	for (int p = 0; p < NPATHS; p++)
		if (!same_at(a, b, p) && !(skip && skip[p]))
			return p;
	return -1;
}

static int differ(const tree *a, const tree *b)
{
	return differ_except(a, b, NULL);
}

static const char *shown(const tree *t, int p)
{
	static char buf[4][64];
	static int next;
	char *out = buf[next++ % 4];

	if (!t->has[p])
		return "(absent)";
	snprintf(out, 64, "'%.*s'%s", (int)strcspn(t->v[p], "\n"), t->v[p],
		 t->wrong_mode[p] ? " (its mode wrong)" : "");
	return out;
}

/* ---- git, read by the checks ---------------------------------------------- */

/* The tree of commit hash (NULL: HEAD) as a model state; false when there
 * is no such commit. */
static bool read_commit(tree *out, const char *hash)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	git_commit *commit = NULL;
	git_tree *t = NULL;
	bool found = false;

	memset(out, 0, sizeof(*out));
	if (git_repository_open(&repo, dir) != 0 ||
	    git_revparse_single(&obj, repo, hash ? hash : "HEAD") != 0 ||
	    git_commit_lookup(&commit, repo, git_object_id(obj)) != 0 ||
	    git_commit_tree(&t, commit) != 0)
		goto done;
	for (int p = 0; p < NPATHS; p++) {
		git_tree_entry *e = NULL;
		git_blob *blob = NULL;

		if (git_tree_entry_bypath(&e, t, paths[p]) != 0)
			continue;
		out->has[p] = true;
		if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) == 0)
			snprintf(out->v[p], sizeof(out->v[p]), "%.*s", (int)git_blob_rawsize(blob),
				 (const char *)git_blob_rawcontent(blob));
		if ((p == LINK_PATH) != (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) ||
		    (p == EXEC_PATH) != (git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB_EXECUTABLE))
			snprintf(out->v[p], sizeof(out->v[p]), "(wrong mode %o)",
				 (unsigned)git_tree_entry_filemode(e));
		git_blob_free(blob);
		git_tree_entry_free(e);
	}
	found = true;
done:
	git_tree_free(t);
	git_commit_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return found;
}

static void head_id(char out[GIT_OID_HEXSZ + 1])
{
	git_repository *repo = NULL;
	git_oid oid;

	*out = '\0';
	if (git_repository_open(&repo, dir) == 0 &&
	    git_reference_name_to_id(&oid, repo, "HEAD") == 0)
		git_oid_tostr(out, GIT_OID_HEXSZ + 1, &oid);
	git_repository_free(repo);
}

/* Which paths git knew before a rollback of operation k (HEAD's tree and
 * the index): a rollback removes only those. When HEAD is a snapshot of
 * the same rollback (a run stopped after it, or undone with the snapshot
 * left as HEAD; one on another after a second stop), what it knew below
 * them: the first other commit's tree. */
static void tracked(bool out[NPATHS], int k)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	git_commit *c = NULL, *parent = NULL;
	git_oid head;
	char message[128], hash[GIT_OID_HEXSZ + 1];
	bool below = false;
	tree t;

	snprintf(message, sizeof(message), "[agent] snapshot before rollback to before %s",
		 ops[k].id);
	if (git_repository_open(&repo, dir) == 0 && git_reference_name_to_id(&head, repo, "HEAD") == 0 &&
	    git_commit_lookup(&c, repo, &head) == 0)
		while (git_commit_parentcount(c) == 1 && !strcmp(git_commit_message(c), message) &&
		       git_commit_parent(&parent, c, 0) == 0) {
			git_commit_free(c);
			c = parent;
			below = true;
		}
	git_oid_tostr(hash, sizeof(hash), c ? git_commit_id(c) : &head);
	read_commit(&t, c ? hash : NULL);
	for (int p = 0; p < NPATHS; p++)
		out[p] = t.has[p];
	if (!below && repo && git_repository_index(&index, repo) == 0)
		for (int p = 0; p < NPATHS; p++)
			out[p] = out[p] || git_index_get_bypath(index, paths[p], 0);
	git_index_free(index);
	git_commit_free(c);
	git_repository_free(repo);
}

/* The log's lines that name a rollback (or revert) of id. */
static int logged(const char *id, bool revert)
{
	ac_op_list list = {0};
	int n = 0;

	if (ac_oplog_read(&list, ws.operations_path, 0, 1, NULL, NULL) != 0)
		return -1;
	for (size_t i = 0; i < list.n; i++) {
		const char *of = json_string_value(json_object_get(list.ops[i].details,
								   revert ? "revertOf" : "rollbackOf"));

		n += of && !strcmp(of, id);
	}
	ac_op_list_free(&list);
	return n;
}

/* ---- the model ------------------------------------------------------------ */

/* What rolling back to before op k puts in the worktree b; false when the
 * revert is refused (a path it changed was changed since). */
static bool expected(tree *out, const tree *b, int k, bool revert)
{
	const tree *before = &ops[k].before, *after = &ops[k].after;
	bool known[NPATHS];

	*out = *b;
	if (revert) {
		for (int p = 0; p < NPATHS; p++) {
			if (same_at(before, after, p) || same_at(b, before, p))
				continue;
			if (!same_at(b, after, p))
				return false;
			out->has[p] = before->has[p];
			memcpy(out->v[p], before->v[p], sizeof(out->v[p]));
		}
		return true;
	}
	tracked(known, k);
	for (int p = 0; p < NPATHS; p++) {
		if (before->has[p] || known[p]) {
			out->has[p] = before->has[p];
			memcpy(out->v[p], before->v[p], sizeof(out->v[p]));
		}
	}
	return true;
}

/* ---- the actors ----------------------------------------------------------- */

static void trace_changes(const char *indent, const tree *from, const tree *to)
{
	for (int p = 0; p < NPATHS; p++)
		if (!same_at(from, to, p))
			sim_trace("%s%s: %s -> %s", indent, paths[p], shown(from, p), shown(to, p));
}

/* The agent: one to two paths changed (created, rewritten or removed),
 * recorded as a file_write operation, which commits the workspace. */
static void agent_operation(void)
{
	tree t = worktree;
	int changes = nops == 0 ? AGENT_PATHS : 1 + (int)sim_below(2);
	json_t *details;
	ac_op *op = NULL;
	int version = ++next_version;

	for (int i = 0; i < changes; i++) {
		int p = nops == 0 ? i : (int)sim_below(AGENT_PATHS);

		if (nops == 0 && sim_chance(0.3))
			continue; /* the first operation leaves some out */
		if (t.has[p] && nops > 0 && sim_chance(0.25)) {
			t.has[p] = false;
		} else {
			t.has[p] = true;
			if (p == LINK_PATH)
				snprintf(t.v[p], sizeof(t.v[p]), "%s", version % 2 ? "a.txt" : "d/c.txt");
			else if (p == EXEC_PATH)
				snprintf(t.v[p], sizeof(t.v[p]), "echo v%d\n", version);
			else
				snprintf(t.v[p], sizeof(t.v[p]), "v%d of %s\n", version, paths[p]);
		}
		put(&t, p);
	}
	details = json_pack("{s:s}", "path", paths[0]);
	if (ac_oplog_record(&op, &ws, "s1", "file_write", details) != 0) {
		printf("sim ops: recording an operation: %s\n", ac_error_last());
		exit(2);
	}
	ops[nops].before = worktree;
	ops[nops].after = t;
	snprintf(ops[nops].id, sizeof(ops[nops].id), "%s", op->id);
	sim_real_seam_drain();
	sim_trace("agent: operation %d (%s) recorded, commit %.12s", nops, op->id, op->commit);
	trace_changes("  ", &worktree, &t);
	worktree = t;
	nops++;
	json_decref(details);
	ac_op_free(op);
}

/* The user's own work before a rollback: a tracked file edited and not
 * committed, a new untracked file, or nothing. */
static void user_work(void)
{
	int version = ++next_version;
	uint64_t pick = sim_below(3);
	int p = pick == 0 ? (int)sim_below(AGENT_PATHS) : AGENT_PATHS + (int)sim_below(2);

	if (pick == 2)
		return;
	if (p == LINK_PATH)
		p = 0; /* a person edits files */
	worktree.has[p] = true;
	snprintf(worktree.v[p], sizeof(worktree.v[p]),
		 p == EXEC_PATH ? "echo user %d\n" : "user's v%d\n", version);
	put(&worktree, p);
	sim_trace("user: %s %s, not committed", pick == 0 ? "edits" : "creates", paths[p]);
}

typedef enum { DONE, KILLED, FAILED } outcome;

/* One attempt of cmd in a process of its own, killed at kill point
 * kill_at (-1: never). why receives a failure's message. */
static outcome attempt(command cmd, int k, bool revert, long kill_at, char *why, size_t size)
{
	ac_oplog_rollback_result result;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	*why = '\0';
	if (pipe(fds) != 0 || (pid = fork()) < 0)
		abort();
	if (pid == 0) {
		int rc;

		close(fds[0]);
		sim_real_seam_arm(kill_at);
		if (cmd == UNDO)
			rc = ac_oplog_undo_interrupted(&result, &ws, false);
		else if (cmd == FINISH)
			rc = ac_oplog_finish_interrupted(&result, &ws, false, NULL);
		else
			rc = (revert ? ac_oplog_revert : ac_oplog_rollback)(&result, &ws, ops[k].id,
									  false, NULL);
		if (rc != 0) {
			ssize_t told = write(fds[1], ac_error_last(), strlen(ac_error_last()));

			(void)told; /* the parent says "exited with status" without it */
		}
		_exit(rc == 0 ? 0 : 1); /* no leak report: the process was the attempt */
	}
	close(fds[1]);
	n = read(fds[0], why, size - 1);
	why[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return KILLED;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return DONE;
	if (!*why)
		snprintf(why, size, "exited with status %d", status);
	return FAILED;
}

/* ---- the invariants ------------------------------------------------------- */

typedef struct {
	int k;
	bool revert;
	tree b, t;            /* before the campaign, and its target */
	tree snapshot;        /* what its snapshot holds: b, before any late write */
	bool late[NPATHS];    /* written by an agent while the rollback stood stopped */
	char head_before[GIT_OID_HEXSZ + 1];
	int logged_before;
} campaign;

static bool intent_plan(bool in_plan[NPATHS], char *snapshot, size_t size, char *why,
			size_t why_size)
{
	char path[512];
	json_t *doc, *file;
	size_t i;

	snprintf(path, sizeof(path), "%s/.agent/rollback-intent.json", dir);
	memset(in_plan, 0, sizeof(bool) * NPATHS);
	if (!(doc = json_load_file(path, 0, NULL))) {
		snprintf(why, why_size, "%s: not a JSON document", path);
		return false;
	}
	snprintf(snapshot, size, "%s", json_string_value(json_object_get(doc, "snapshot")) ?
		 json_string_value(json_object_get(doc, "snapshot")) : "");
	json_array_foreach(json_object_get(doc, "files"), i, file) {
		const char *p = json_string_value(json_object_get(file, "path"));

		for (int q = 0; p && q < NPATHS; q++)
			in_plan[q] = in_plan[q] || !strcmp(paths[q], p);
	}
	json_decref(doc);
	return true;
}

static bool intent_exists(void)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/.agent/rollback-intent.json", dir);
	return lstat(path, &st) == 0;
}

/* The invariants after an attempt (see the file's comment). */
static bool check(const campaign *c, char *why, size_t size)
{
	const char *kind = c->revert ? "revert" : "rollback";
	char extra[256], snapshot[64], head[GIT_OID_HEXSZ + 1];
	bool in_plan[NPATHS];
	tree r, h;
	int temps, p;

	read_worktree(&r, extra, sizeof(extra), &temps);
	if (*extra) {
		snprintf(why, size, "%s is in the worktree, but neither the state before the %s "
			 "nor its target has it", extra, kind);
		return false;
	}
	if (intent_exists()) {
		if (!intent_plan(in_plan, snapshot, sizeof(snapshot), why, size))
			return false;
		if (!read_commit(&h, snapshot)) {
			snprintf(why, size, "the intent names the snapshot %.12s, which is no commit",
				 snapshot);
			return false;
		}
		if ((p = differ(&h, &c->snapshot)) >= 0) {
			snprintf(why, size, "the intent's snapshot %.12s holds %s at %s, the worktree "
				 "before the %s %s: the state before cannot be put back", snapshot,
				 shown(&h, p), paths[p], kind, shown(&c->snapshot, p));
			return false;
		}
		for (p = 0; p < NPATHS; p++) {
			if (!in_plan[p] && !same_at(&c->b, &c->t, p)) {
				snprintf(why, size, "the %s's plan leaves out %s, which it changes (%s "
					 "to %s)", kind, paths[p], shown(&c->b, p), shown(&c->t, p));
				return false;
			}
			/* Content and mode: a file's mode is set before its
			 * rename, so no kill leaves new content with an old mode. */
			if (!same_at(&r, &c->b, p) && !same_at(&r, &c->t, p)) {
				snprintf(why, size, "with the intent there, %s holds %s: neither the "
					 "state before (%s) nor the target (%s)", paths[p],
					 shown(&r, p), shown(&c->b, p), shown(&c->t, p));
				return false;
			}
		}
		return true;
	}
	if (temps) {
		snprintf(why, size, "no intent, but %d temp file%s of agentctl's in the worktree",
			 temps, temps == 1 ? "" : "s");
		return false;
	}
	head_id(head);
	if (differ(&r, &c->b) < 0) {
		/* HEAD moved (a snapshot, or a commit of the same tree): it holds
		 * the worktree. */
		if (strcmp(head, c->head_before) && read_commit(&h, NULL) &&
		    (p = differ_except(&h, &r, c->late)) >= 0) {
			snprintf(why, size, "no intent, the worktree is the state before the %s, but "
				 "HEAD %.12s holds %s at %s where the worktree has %s", kind, head,
				 shown(&h, p), paths[p], shown(&r, p));
			return false;
		}
		return true;
	}
	if ((p = differ(&r, &c->t)) >= 0) {
		int q = differ(&r, &c->b);

		snprintf(why, size, "no intent, and the worktree is a mix: %s holds %s (the state "
			 "before: %s), %s holds %s (the target: %s)", paths[q], shown(&r, q),
			 shown(&c->b, q), paths[p], shown(&r, p), shown(&c->t, p));
		return false;
	}
	read_commit(&h, NULL);
	if ((p = differ_except(&h, &r, c->late)) >= 0) {
		snprintf(why, size, "no intent, the worktree is the %s's target, but HEAD %.12s "
			 "holds %s at %s where the worktree has %s", kind, head, shown(&h, p),
			 paths[p], shown(&r, p));
		return false;
	}
	if (logged(ops[c->k].id, c->revert) != c->logged_before + 1) {
		snprintf(why, size, "the %s of operation %d is done, but the log names it %d "
			 "times (%d before)", kind, c->k, logged(ops[c->k].id, c->revert),
			 c->logged_before);
		return false;
	}
	return true;
}

/* ---- a campaign ----------------------------------------------------------- */

/* An agent that goes on writing while the rollback stands stopped, not
 * through agentctl (which refuses while the intent is there): a path the
 * plan does not touch, which finish and undo must leave as it wrote it. */
static void late_write(campaign *c)
{
	bool in_plan[NPATHS];
	char snapshot[64], why[256];
	int p = (int)sim_below(NPATHS), version = ++next_version;

	if (p == LINK_PATH || !intent_plan(in_plan, snapshot, sizeof(snapshot), why, sizeof(why)) ||
	    in_plan[p])
		return;
	c->b.has[p] = c->t.has[p] = true;
	c->b.wrong_mode[p] = c->t.wrong_mode[p] = false;
	snprintf(c->b.v[p], sizeof(c->b.v[p]), p == EXEC_PATH ? "echo late %d\n" : "late v%d\n",
		 version);
	memcpy(c->t.v[p], c->b.v[p], sizeof(c->t.v[p]));
	c->late[p] = true;
	put(&c->b, p);
	sim_trace("agent: writes %s while the rollback stands stopped (not through agentctl)",
		  paths[p]);
}

/* What the user runs after a kill: with the intent there, the same again,
 * --finish or --undo (the seed's pick); without, the same again. */
static command next_command(void)
{
	return intent_exists() ? (command)sim_below(3) : RUN;
}

static bool run_campaign(double kill_rate, char *why, size_t size)
{
	campaign c = {.k = (int)sim_below((uint64_t)nops), .revert = sim_chance(0.5)};
	bool allowed, undone = false;
	command cmd = RUN;
	char failure[1024];
	int attempts = 0;

	user_work();
	c.b = c.snapshot = worktree;
	allowed = expected(&c.t, &c.b, c.k, c.revert);
	/* Most refused reverts become rollbacks, as a user would (the
	 * refusal says so). */
	if (!allowed && sim_chance(0.7)) {
		c.revert = false;
		allowed = expected(&c.t, &c.b, c.k, c.revert);
	}
	head_id(c.head_before);
	if (allowed)
		trace_changes("  expected: ", &c.b, &c.t);
	c.logged_before = logged(ops[c.k].id, c.revert);
	sim_trace("user: ops %s of operation %d%s", c.revert ? "revert" : "rollback", c.k,
		  allowed ? "" : " (the model: refused, a path it changed was changed since)");
	for (;;) {
		/* The tenth attempt is left to finish: every campaign resolves. */
		long kill_at = ++attempts < 10 && kill_rate > 0 && sim_chance(0.7) ?
				       1 + (long)sim_below((uint64_t)typical[cmd] + 4) : -1;
		outcome o;

		sim_trace("attempt %d: ops %s %s%s", attempts, c.revert ? "revert" : "rollback",
			  cmd == RUN ? "OPID" : command_names[cmd],
			  kill_at > 0 ? " (to be killed)" : "");
		o = attempt(cmd, c.k, c.revert, kill_at, failure, sizeof(failure));
		sim_real_seam_drain();
		if (o != KILLED)
			typical[cmd] = sim_real_seam_points();
		sim_trace("attempt %d: %s%s%s", attempts,
			  o == DONE ? "done" : o == KILLED ? "KILLED" : "failed", *failure ? ": " : "",
			  failure);
		if (!check(&c, why, size))
			return false;
		if (o == DONE) {
			undone = cmd == UNDO;
			break;
		}
		if (o == FAILED) {
			if (!allowed && cmd == RUN && !intent_exists())
				break; /* refused, as the model says */
			/* A stopped undo that had committed: the refusal says to
			 * finish the undo, and the user does. */
			if (cmd != UNDO && intent_exists() && strstr(failure, "(--undo)")) {
				cmd = UNDO;
				continue;
			}
			snprintf(why, size, "ops %s %s failed: %s", c.revert ? "revert" : "rollback",
				 cmd == RUN ? "OPID" : command_names[cmd], failure);
			return false;
		}
		/* Killed after the intent went: the undo is whole, or the
		 * rollback (the user sees it in `ops list`; running it again
		 * would be another). */
		if (!intent_exists() && cmd == UNDO) {
			undone = true;
			break;
		}
		if (!intent_exists() && logged(ops[c.k].id, c.revert) > c.logged_before)
			break;
		if (intent_exists() && sim_chance(0.3))
			late_write(&c);
		cmd = next_command();
	}
	worktree = allowed && !undone ? c.t : c.b; /* late writes included */
	if (!allowed && !undone && cmd == RUN) {
		tree r;
		char extra[256];
		int temps, p;

		read_worktree(&r, extra, sizeof(extra), &temps);
		if ((p = differ(&r, &c.b)) >= 0) {
			snprintf(why, size, "the model refuses this revert (a path it changes was "
				 "changed since), but it ran: %s holds %s, before %s", paths[p],
				 shown(&r, p), shown(&c.b, p));
			return false;
		}
	}
	if (intent_exists()) {
		snprintf(why, size, "the campaign ended with the intent still there");
		return false;
	}
	return true;
}

/* ---- the run -------------------------------------------------------------- */

static void remove_tree(const char *path)
{
	char child[1024];
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if ((d = opendir(path))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
				remove_tree(child);
			}
		closedir(d);
	}
	rmdir(path);
}

static bool setup(uint64_t seed)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	git_repository *repo = NULL;
	char agent[512];

	snprintf(dir, sizeof(dir), "%s/agentctl-sim-ops.XXXXXX", base);
	if (!mkdtemp(dir))
		return false;
	/* Nobody's git or agentctl configuration: the workspace's own. */
	setenv("HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1);
	git_libgit2_init();
	for (int level = GIT_CONFIG_LEVEL_SYSTEM; level <= GIT_CONFIG_LEVEL_GLOBAL; level++)
		git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, dir);
	if (git_repository_init(&repo, dir, 0) != 0)
		return false;
	git_repository_free(repo);
	snprintf(agent, sizeof(agent), "%s/.agent", dir);
	mkdir(agent, 0755);
	if (sim_real_seam_install(dir, seed) != 0 || ac_config_load(&config, dir) != 0 ||
	    ac_workspace_init(&ws, config) != 0)
		return false;
	memset(&worktree, 0, sizeof(worktree));
	memset(typical, 0, sizeof(typical));
	typical[RUN] = 60;
	typical[FINISH] = typical[UNDO] = 30;
	nops = next_version = 0;
	return true;
}

int sim_ops_run(const sim_config *config_)
{
	char why[2048] = "";
	int ops_wanted = 3 + (int)sim_below(3) * sim_ops_percent / 100;
	int campaigns = 2 + (int)sim_below(3), rc = 0;

	if (!setup(config_->seed)) {
		printf("sim ops: setting up %s: %s\n", dir, ac_error_last());
		remove_tree(dir);
		return 2;
	}
	sim_trace("workspace set up (a git repository, .agent/)");
	for (int i = 0; i < ops_wanted && i < MAX_OPS; i++)
		agent_operation();
	for (int i = 0; i < campaigns && rc == 0; i++)
		if (!run_campaign(config_->kill_rate, why, sizeof(why)))
			rc = 1;
	ac_fs_use(NULL);
	ac_workspace_free(&ws);
	ac_config_free(config);
	remove_tree(dir);
	if (rc)
		sim_report_violation(config_, "ops", 0, why);
	return rc;
}
