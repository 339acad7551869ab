/* The scan behind `agentctl usage`: walks the transcript folders, reads
 * each file's new bytes through its extractor into the index entry, drops
 * entries of files that are gone, saves the index, then lays every entry's
 * buckets (and agentctl's own turn rows) out as one set. */
#include "ac_usage_index.h"

#include "ac_source_gemini_impl.h"

#include "ac_backend_sys.h"
#include "ac_config.h"
#include "ac_error.h"
#include "ac_file.h"
#include "ac_read_ahead.h"
#include "ac_struct_version.h"
#include "ac_text.h"
#include "ac_time.h"
#include "ac_turn_usage.h"
#include "ac_zstd.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folders deeper than this are not walked (codex: YYYY/MM/DD; claude:
 * project/session/subagents). */
#define DEPTH_MAX 5
#define BLOCK (4u << 20)
/* A longer line is skipped and counted (read_from()). */
#define LINE_MAX_BYTES (64u << 20)

char *ac_usage_index_default_path(void)
{
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	ac_buf b = AC_BUF_INIT;

	if (cache && cache[0] == '/')
		ac_buf_printf(&b, "%s/agentctl/usage-index.bin", cache);
	else if (home && home[0] == '/')
		ac_buf_printf(&b, "%s/.cache/agentctl/usage-index.bin", home);
	return b.data;
}

/* A folder key's value with "~/" made $HOME/, a relative one joined to
 * the workspace (ac_config_path), or the default under $HOME. */
static char *folder(const ac_config *config, const char *key, const char *home_default)
{
	const char *v = ac_config_string(config, key, NULL), *home = getenv("HOME");
	ac_buf b = AC_BUF_INIT;

	if (v && !strncmp(v, "~/", 2) && home)
		ac_buf_printf(&b, "%s/%s", home, v + 2);
	else if (v && v[0] != '/')
		return ac_config_path(config, key, NULL);
	else if (v)
		ac_buf_printf(&b, "%s", v);
	else if (home)
		ac_buf_printf(&b, "%s/%s", home, home_default);
	return b.data;
}

int ac_usage_paths_init(ac_usage_paths *out, const ac_workspace *ws)
{
	const ac_config *config = ws->config;

	memset(out, 0, sizeof(*out));
	out->claude_dir = folder(config, "sources.claude.dir", ".claude/projects");
	out->codex_dir = folder(config, "sources.codex.dir", ".codex/sessions");
	out->gemini_dir = folder(config, "sources.gemini.dir", ".gemini/tmp");
	out->sessions_dir = ws->sessions_dir ? strdup(ws->sessions_dir) : NULL;
	out->index_path = ac_usage_index_default_path();
	out->workspace = ws;
	/* Without HOME a default folder is simply not read. */
	if (ws->sessions_dir && !out->sessions_dir) {
		ac_usage_paths_free(out);
		return ac_error_set(AC_ENOMEM, "out of memory");
	}
	return 0;
}

void ac_usage_paths_free(ac_usage_paths *paths)
{
	free(paths->claude_dir);
	free(paths->codex_dir);
	free(paths->gemini_dir);
	free(paths->sessions_dir);
	free(paths->index_path);
	memset(paths, 0, sizeof(*paths));
}

typedef struct {
	ac_usage_index *index;
	ac_usage_set *set;
	size_t by_path_n;
	size_t *by_path; /* indexes of the loaded entries, sorted by path
			    (indexes: new entries may move the array) */
	/* Which file holds the booking of each keyed message (key -> entry
	 * index), built when the first file is read: a resumed session
	 * repeats earlier messages in its new file, and ccusage counts each
	 * once in all, with its largest counts. */
	uint64_t *owner_keys;
	size_t *owners, cap_owners, n_owners;
	bool owners_built;
	const atomic_bool *cancel; /* the caller's stop request, or NULL */
	/* The files the walk found, in its order, read after it (so that
	 * the next ones can be read ahead meanwhile: ac_read_ahead.h). */
	ac_read_ahead_file *ahead;
	ac_usage_source *sources;
	size_t n_found, cap_found;
} scan;

/* The owner slot of key (empty: owner_keys[i] == 0). */
static size_t owner_slot(const scan *s, uint64_t key)
{
	size_t i = (size_t)(key ^ (key >> 29)) & (s->cap_owners - 1);

	while (s->owner_keys[i] && s->owner_keys[i] != key)
		i = (i + 1) & (s->cap_owners - 1);
	return i;
}

/* key -> owner, unless key has one (or always, when force): 0 or
 * AC_ENOMEM. */
static int own(scan *s, uint64_t key, size_t owner, bool force)
{
	size_t i;

	if ((s->n_owners + 1) * 2 > s->cap_owners) {
		scan grown = {.cap_owners = s->cap_owners ? s->cap_owners * 2 : 1024};

		grown.owner_keys = calloc(grown.cap_owners, sizeof(*grown.owner_keys));
		grown.owners = calloc(grown.cap_owners, sizeof(*grown.owners));
		if (!grown.owner_keys || !grown.owners) {
			free(grown.owner_keys);
			free(grown.owners);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		for (size_t k = 0; k < s->cap_owners; k++)
			if (s->owner_keys[k]) {
				i = owner_slot(&grown, s->owner_keys[k]);
				grown.owner_keys[i] = s->owner_keys[k];
				grown.owners[i] = s->owners[k];
			}
		free(s->owner_keys);
		free(s->owners);
		s->owner_keys = grown.owner_keys;
		s->owners = grown.owners;
		s->cap_owners = grown.cap_owners;
	}
	i = owner_slot(s, key);
	if (!s->owner_keys[i]) {
		s->owner_keys[i] = key;
		s->owners[i] = owner;
		s->n_owners++;
	} else if (force) {
		s->owners[i] = owner;
	}
	return 0;
}

static int build_owners(scan *s)
{
	int rc;

	s->owners_built = true;
	for (size_t e = 0; e < s->index->n; e++) {
		const ac_usage_entry *entry = &s->index->entries[e];
		const ac_usage_file_state *st = &entry->state;
		struct stat now;

		/* A file that is gone (or renamed: the same bytes under a new
		 * name are read as a new file) holds nothing: its entry leaves
		 * the index at the end of this scan, and its messages must be
		 * booked where they are now. */
		if (lstat(entry->path, &now) != 0 || (uint64_t)now.st_ino != entry->ino ||
		    (uint64_t)now.st_dev != entry->dev)
			continue;
		/* Only the file holding a key's booking owns it (another file
		 * that gave the same message keeps the key, unbooked). */
		for (size_t k = 0; k < st->cap_keys; k++)
			if (st->keys[k] && st->booked[k].bucket != AC_USAGE_UNBOOKED &&
			    (rc = own(s, st->keys[k], e, false)))
				return rc;
	}
	return 0;
}

static int visit_entry(scan *s, const char *path, ac_usage_source source, ac_usage_entry *e);

/* After the walk: entries the walk did not see (their files gone, or out
 * of the folders read) leave the index, and with them the bookings of
 * messages other files also gave (a resumed session's copy, its original
 * deleted by Claude Code's cleanup): those files are read again from
 * their start, so the messages are booked where they still are. Costs a
 * pass over the keys only when such an entry held keys. */
static int rebook_orphans(scan *s)
{
	bool orphans = false;
	int rc = 0;

	for (size_t e = 0; e < s->index->n && !orphans; e++)
		orphans = !s->index->entries[e].seen && s->index->entries[e].state.n_keys;
	if (!orphans)
		return 0;
	/* The owners again, from the seen entries only. */
	free(s->owner_keys);
	free(s->owners);
	s->owner_keys = NULL;
	s->owners = NULL;
	s->cap_owners = s->n_owners = 0;
	for (size_t e = 0; e < s->index->n; e++) {
		const ac_usage_file_state *st = &s->index->entries[e].state;

		for (size_t k = 0; s->index->entries[e].seen && k < st->cap_keys; k++)
			if (st->keys[k] && st->booked[k].bucket != AC_USAGE_UNBOOKED &&
			    (rc = own(s, st->keys[k], e, false)))
				return rc;
	}
	s->owners_built = true;
	for (size_t e = 0; e < s->index->n; e++) {
		ac_usage_entry *entry = &s->index->entries[e];
		const ac_usage_file_state *st = &entry->state;
		bool lost = false;

		for (size_t k = 0; entry->seen && k < st->cap_keys && !lost; k++)
			lost = st->keys[k] && st->booked[k].bucket == AC_USAGE_UNBOOKED &&
			       (!s->cap_owners || !s->owner_keys[owner_slot(s, st->keys[k])]);
		if (!lost)
			continue;
		{
			size_t files = s->set->files; /* seen once, read twice */

			/* A size and offset no file has: visit_entry reads it
			 * again whole. */
			entry->size = entry->offset = UINT64_MAX;
			rc = visit_entry(s, entry->path, entry->source, entry);
			s->set->files = files;
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int by_path_cmp(const void *a, const void *b, void *ctx)
{
	const ac_usage_entry *entries = ctx;

	return strcmp(entries[*(const size_t *)a].path, entries[*(const size_t *)b].path);
}

static ac_usage_entry *find(const scan *s, const char *path)
{
	size_t lo = 0, hi = s->by_path_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		ac_usage_entry *e = &s->index->entries[s->by_path[mid]];
		int cmp = strcmp(path, e->path);

		if (!cmp)
			return e;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

typedef struct {
	scan *s;
	size_t at; /* the entry being read */
} reading;

/* A keyed message is booked once over all files, in the first file that
 * gave it; a later line of it (this file's or another's) with larger
 * counts replaces that booking's counts in place, never adds (Claude Code
 * streams a message over several lines, the last with the real output). */
static int add_record(const ac_usage_record *r, void *ctx)
{
	reading *rd = ctx;
	ac_usage_entry *here = &rd->s->index->entries[rd->at];
	ac_usage_booking *mine;
	size_t bucket;
	int rc;

	if (r->key) {
		size_t i = rd->s->cap_owners ? owner_slot(rd->s, r->key) : 0;

		if (rd->s->cap_owners && rd->s->owner_keys[i]) {
			ac_usage_entry *owner = &rd->s->index->entries[rd->s->owners[i]];
			ac_usage_booking *held = ac_usage_file_state_booking(&owner->state, r->key);

			/* The owner still holds it (a file read again from its
			 * start has dropped its bookings: this line books anew). */
			if (held && held->bucket != AC_USAGE_UNBOOKED && held->bucket < owner->n_buckets) {
				if (r->source == AC_USAGE_CLAUDE && ac_usage_booking_outgrown(held, &r->counts))
					ac_usage_entry_replace(owner, held, &r->counts);
				return 0;
			}
		}
		if ((rc = own(rd->s, r->key, rd->at, true)))
			return rc;
	}
	if ((rc = ac_usage_entry_add(here, r, &bucket)))
		return rc;
	if (r->key) {
		/* The extractor added the key to this file's state. */
		if ((rc = ac_usage_file_state_add_key(&here->state, r->key)))
			return rc;
		mine = ac_usage_file_state_booking(&here->state, r->key);
		mine->bucket = (uint32_t)bucket;
		ac_usage_booking_set(mine, &r->counts);
	}
	return 0;
}

/* The session a file's name gives: its base name without ".jsonl" (cut
 * to size at a character's start: it is shown and put in JSON). */
static const char *stem(char *buf, size_t size, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 10 && !strcmp(base + len - 10, ".jsonl.zst"))
		len -= 10;
	else if (len > 6 && !strcmp(base + len - 6, ".jsonl"))
		len -= 6;
	else if (len > 5 && !strcmp(base + len - 5, ".json"))
		len -= 5;
	snprintf(buf, size, "%.*s", (int)len, base);
	for (len = strlen(buf); len && !ac_text_is_utf8(buf, len);)
		buf[--len] = '\0';
	return buf;
}

static uint64_t tail_hash(int fd, uint64_t offset)
{
	unsigned char bytes[AC_USAGE_TAIL];
	size_t want = offset < AC_USAGE_TAIL ? (size_t)offset : AC_USAGE_TAIL;
	ssize_t got = want ? pread(fd, bytes, want, (off_t)(offset - want)) : 0;

	return ac_usage_fnv(1469598103934665603ULL, bytes, got > 0 ? (size_t)got : 0);
}

/* A Gemini chat of the older format: one document, read whole each time
 * it changes (the caller cleared the entry). */
static int read_document(scan *s, ac_usage_entry *e, int fd, uint64_t size)
{
	reading rd = {s, (size_t)(e - s->index->entries)};
	char *buf, name[256];
	size_t have = 0;
	int rc;

	stem(name, sizeof(name), e->path);
	if (size > LINE_MAX_BYTES) {
		s->set->lines_skipped++; /* no chat the CLI wrote */
		e->offset = size;
		return 0;
	}
	if (!s->owners_built && (rc = build_owners(s)))
		return rc;
	if (!(buf = malloc((size_t)size + 1)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	while (have < size) {
		ssize_t n = pread(fd, buf + have, (size_t)size - have, (off_t)have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	s->set->bytes_read += have;
	rc = ac_usage_gemini_document(&e->state, buf, have, name, add_record, &rd,
				      &s->set->lines_skipped);
	e->offset = have;
	free(buf);
	return rc;
}

static int extract(ac_usage_entry *e, const char *text, size_t len, const char *name,
		   reading *rd, size_t *skipped)
{
	switch (e->source) {
	case AC_USAGE_CODEX:
		return ac_usage_codex_extract(&e->state, text, len, name, add_record, rd, skipped);
	case AC_USAGE_GEMINI:
		return ac_usage_gemini_extract(&e->state, text, len, name, add_record, rd, skipped);
	default:
		return ac_usage_claude_extract(&e->state, text, len, name, add_record, rd, skipped);
	}
}

/* Reads e's file from e->offset to its end, whole lines only, through its
 * extractor. The caller decided the offset (0 for a fresh read). */
static int read_from(scan *s, ac_usage_entry *e, int fd, uint64_t size)
{
	char *buf = NULL, name[256];
	size_t cap = BLOCK, have = 0;
	uint64_t at = e->offset;
	reading rd = {s, (size_t)(e - s->index->entries)};
	int rc = 0;
	bool skipping = false; /* inside a line past LINE_MAX_BYTES */

	stem(name, sizeof(name), e->path);
	if (!s->owners_built && (rc = build_owners(s)))
		return rc;
	if (!(buf = malloc(cap)))
		return ac_error_set(AC_ENOMEM, "out of memory");
	/* A Gemini chat read from its start books its messages at the end
	 * (a rewind may drop some). */
	if (e->source == AC_USAGE_GEMINI && at == 0 && (rc = ac_usage_gemini_begin(&e->state)))
		goto done;
	while (at + have < size) {
		size_t want = cap - have;
		ssize_t n;
		char *last_nl;

		if ((uint64_t)want > size - at - have)
			want = (size_t)(size - at - have);
		n = pread(fd, buf + have, want, (off_t)(at + have));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		s->set->bytes_read += (uint64_t)n;
		if (skipping) {
			char *nl = memchr(buf, '\n', have);
			size_t drop = nl ? (size_t)(nl - buf) + 1 : have;

			at += drop;
			memmove(buf, buf + drop, have - drop);
			have -= drop;
			skipping = !nl;
			if (!have)
				continue;
		}
		last_nl = memrchr(buf, '\n', have);
		if (!last_nl) {
			/* One line longer than the buffer: make room. */
			char *grown;

			if (have < cap)
				continue;
			if (cap >= LINE_MAX_BYTES) {
				/* No tool writes such a line (a sparse or hostile file
				 * does): skipped to its end, never held whole. */
				s->set->lines_skipped++;
				skipping = true;
				at += have;
				have = 0;
				continue;
			}
			if (!(grown = realloc(buf, cap * 2))) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto done;
			}
			buf = grown;
			cap *= 2;
			continue;
		}
		{
			size_t whole = (size_t)(last_nl - buf) + 1;

			rc = extract(e, buf, whole, name, &rd, &s->set->lines_skipped);
			if (rc)
				goto done;
			at += whole;
			memmove(buf, buf + whole, have - whole);
			have -= whole;
		}
	}
	/* What is left is a line still being written: read next time. */
	e->offset = at;
	if (e->source == AC_USAGE_GEMINI)
		rc = ac_usage_gemini_finish(&e->state, name, add_record, &rd);
done:
	free(buf);
	return rc;
}

/* A compressed rollout (Codex's .jsonl.zst) is written once, whole: read
 * again from its start when it changed, a decompressed block at a time;
 * whole lines go to the extractor, the rest waits for the next block. */
typedef struct {
	scan *s;
	ac_usage_entry *e;
	reading *rd;
	const char *name;
	ac_buf pending;
	bool skipping;
} unpacking;

static int unpacked_block(const char *bytes, size_t len, void *ctx)
{
	unpacking *u = ctx;
	const char *last_nl = memrchr(bytes, '\n', len), *rest = bytes;
	int rc;

	u->s->set->bytes_read += len;
	if (last_nl) {
		size_t whole = (size_t)(last_nl - bytes) + 1;

		if (u->skipping) {
			/* The end of an overlong line: what follows it is whole. */
			const char *nl = memchr(bytes, '\n', len);

			u->skipping = false;
			ac_buf_clear(&u->pending);
			rest = nl + 1;
			whole = (size_t)(last_nl - rest) + 1;
			if (rest > last_nl)
				whole = 0;
		}
		if ((rc = ac_buf_append(&u->pending, rest, whole)) ||
		    (u->pending.len &&
		     (rc = ac_usage_codex_extract(&u->e->state, u->pending.data, u->pending.len,
						  u->name, add_record, u->rd,
						  &u->s->set->lines_skipped))))
			return rc;
		ac_buf_clear(&u->pending);
		rest = last_nl + 1;
		len -= (size_t)(rest - bytes);
	} else {
		rest = bytes;
	}
	if (u->skipping)
		return 0;
	if (u->pending.len + len > LINE_MAX_BYTES) {
		u->s->set->lines_skipped++;
		u->skipping = true;
		ac_buf_clear(&u->pending);
		return 0;
	}
	return ac_buf_append(&u->pending, rest, len);
}

static int read_compressed(scan *s, ac_usage_entry *e, uint64_t size)
{
	char name[256];
	reading rd = {s, (size_t)(e - s->index->entries)};
	unpacking u = {s, e, &rd, stem(name, sizeof(name), e->path), AC_BUF_INIT, false};
	int rc;

	if (!s->owners_built && (rc = build_owners(s)))
		return rc;
	rc = ac_zstd_each_block(e->path, unpacked_block, &u);
	ac_buf_free(&u.pending);
	if (rc == AC_ECORRUPT) {
		/* Not a whole zstd stream: what it gave is kept, the rest is
		 * counted as one line that could not be read. */
		ac_error_clear();
		s->set->lines_skipped++;
		rc = 0;
	}
	e->offset = size;
	return rc;
}

static void stamp(ac_usage_entry *e, const struct stat *st)
{
	e->seen = true;
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->size = (uint64_t)st->st_size;
	e->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Brings the entry of one transcript file up to date. */
static int visit_entry(scan *s, const char *path, ac_usage_source source, ac_usage_entry *e)
{
	ac_usage_entry fresh = {0};
	struct stat st;
	int fd, rc = 0;
	bool reread;
	/* A chat of Gemini's older format is one document, rewritten whole. */
	bool document = source == AC_USAGE_GEMINI && ac_source_gemini_is_document(path);

	/* Non-blocking open: a FIFO swapped in after the walk's lstat does
	 * not hang the scan. */
	if (ac_file_open_regular(&fd, AT_FDCWD, path, O_RDONLY | O_NOFOLLOW, 0, path) != 0) {
		ac_error_clear();
		return 0; /* gone, unreadable or not a regular file: not counted */
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		goto done;
	s->set->files++;
	if (e && e->source == source && e->dev == (uint64_t)st.st_dev &&
	    e->ino == (uint64_t)st.st_ino && e->size == (uint64_t)st.st_size &&
	    e->mtime_ns == (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec) {
		e->seen = true; /* unchanged: nothing read */
		goto done;
	}
	/* Appended to, or something else: an append keeps the inode and the
	 * bytes before the offset. */
	reread = !e || e->source != source || ac_zstd_path(path) || e->dev != (uint64_t)st.st_dev ||
		 e->ino != (uint64_t)st.st_ino || (uint64_t)st.st_size < e->offset ||
		 tail_hash(fd, e->offset) != e->tail_hash || document;
	if (!e || reread) {
		if (e) {
			s->set->files_reread++;
			fresh.path = e->path;
			e->path = NULL;
			ac_usage_entry_clear(e);
		} else if (!(fresh.path = strdup(path))) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto done;
		}
		if (!e) {
			if (s->index->n == s->index->cap) {
				size_t cap = s->index->cap ? s->index->cap * 2 : 256;
				ac_usage_entry *grown = realloc(s->index->entries, cap * sizeof(*grown));

				if (!grown) {
					free(fresh.path);
					rc = ac_error_set(AC_ENOMEM, "out of memory");
					goto done;
				}
				s->index->entries = grown;
				s->index->cap = cap;
			}
			e = &s->index->entries[s->index->n++];
		}
		*e = fresh;
		e->source = source;
	}
	stamp(e, &st);
	s->set->files_read++;
	/* A Gemini chat names no cwd: its project folder's root is it. */
	if (source == AC_USAGE_GEMINI && !e->state.project)
		e->state.project = ac_source_gemini_root_of(path);
	if (ac_zstd_path(path))
		rc = read_compressed(s, e, (uint64_t)st.st_size);
	else
		rc = document ? read_document(s, e, fd, (uint64_t)st.st_size)
			      : read_from(s, e, fd, (uint64_t)st.st_size);
	e->tail_hash = tail_hash(fd, e->offset);
done:
	close(fd);
	return rc;
}

static bool wanted(const char *dir, const char *name, ac_usage_source source)
{
	size_t len = strlen(name);
	char plain[PATH_MAX];
	struct stat st;

	if (source == AC_USAGE_CODEX && len > 10 && !strcmp(name + len - 10, ".jsonl.zst")) {
		/* Compressed, unless the plain rollout is still there (that one
		 * is read: codex-rs rollout/src/compression.rs). */
		if (strncmp(name, "rollout-", 8) ||
		    snprintf(plain, sizeof(plain), "%s/%.*s", dir, (int)len - 4, name) >=
			    (int)sizeof(plain))
			return false;
		return lstat(plain, &st) != 0;
	}
	if (source == AC_USAGE_GEMINI && len > 5 && !strcmp(name + len - 5, ".json"))
		return true;
	if (len < 7 || strcmp(name + len - 6, ".jsonl"))
		return false;
	return source != AC_USAGE_CODEX || !strncmp(name, "rollout-", 8);
}

/* A Gemini .json chat the CLI migrated to the .jsonl beside it (its
 * messages are there too). */
static bool migrated(const char *path)
{
	ac_buf jsonl = AC_BUF_INIT;
	struct stat st;
	bool yes;

	if (!ac_source_gemini_is_document(path) || ac_buf_printf(&jsonl, "%sl", path))
		return false;
	yes = lstat(jsonl.data, &st) == 0 && S_ISREG(st.st_mode);
	ac_buf_free(&jsonl);
	return yes;
}

/* Adds a file the walk found (path taken over, freed on failure); what
 * of it the visit will read is worked out now from its entry and st: the
 * new bytes of a file appended to, all of one read again, none of one
 * unchanged. */
static int found(scan *s, char *path, ac_usage_source source, const struct stat *st)
{
	const ac_usage_entry *e = find(s, path);
	uint64_t size = (uint64_t)st->st_size, from = 0;

	if (s->n_found == s->cap_found) {
		size_t cap = s->cap_found ? s->cap_found * 2 : 256;
		ac_read_ahead_file *ahead = realloc(s->ahead, cap * sizeof(*ahead));
		ac_usage_source *sources = ahead ? realloc(s->sources, cap * sizeof(*sources)) : NULL;

		if (ahead)
			s->ahead = ahead;
		if (!sources) {
			free(path);
			return ac_error_set(AC_ENOMEM, "out of memory");
		}
		s->sources = sources;
		s->cap_found = cap;
	}
	if (e && e->source == source && e->dev == (uint64_t)st->st_dev &&
	    e->ino == (uint64_t)st->st_ino) {
		int64_t mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;

		if (e->size == size && e->mtime_ns == mtime_ns)
			from = size; /* unchanged */
		else if (size >= e->offset && !ac_zstd_path(path) &&
			 !(source == AC_USAGE_GEMINI && ac_source_gemini_is_document(path)))
			from = e->offset;
	}
	s->ahead[s->n_found] = (ac_read_ahead_file){path, from, size};
	s->sources[s->n_found++] = source;
	return 0;
}

/* Visits the files found, in order, the next ones read ahead meanwhile. */
static int visit_found(scan *s)
{
	ac_read_ahead *ra = NULL;
	int rc = 0;

	ac_read_ahead_start(&ra, s->ahead, s->n_found);
	for (size_t i = 0; i < s->n_found && !rc; i++) {
		if (s->cancel && atomic_load(s->cancel)) {
			rc = ac_error_set(AC_EBUSY, "usage scan: stopped");
			break;
		}
		ac_read_ahead_at(ra, i);
		rc = visit_entry(s, s->ahead[i].path, s->sources[i], find(s, s->ahead[i].path));
	}
	ac_read_ahead_stop(ra);
	return rc;
}

/* Every wanted file under dir, in name order (the order files are read in
 * decides nothing but is kept stable). Symbolic links are not followed. */
static int walk(scan *s, const char *dir, ac_usage_source source, int depth)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return 0; /* absent or unreadable: nothing from it */
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		ac_buf path = AC_BUF_INIT;
		struct stat st;

		if (rc || name[0] == '.')
			goto next;
		if (s->cancel && atomic_load(s->cancel)) {
			rc = ac_error_set(AC_EBUSY, "usage scan: stopped");
			goto next;
		}
		ac_buf_printf(&path, "%s/%s", dir, name);
		if (!path.data) {
			rc = ac_error_set(AC_ENOMEM, "out of memory");
			goto next;
		}
		if (lstat(path.data, &st) != 0)
			goto next;
		/* A name that is not UTF-8 cannot name a session or project in
		 * a report (nor in the index): no tool writes one. Counted. */
		if ((S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && wanted(dir, name, source))) &&
		    !ac_text_is_utf8(name, strlen(name))) {
			s->set->files_skipped++;
			goto next;
		}
		if (S_ISDIR(st.st_mode) && depth < DEPTH_MAX)
			rc = walk(s, path.data, source, depth + 1);
		else if (S_ISREG(st.st_mode) && wanted(dir, name, source) &&
			 !(source == AC_USAGE_GEMINI && migrated(path.data)))
			rc = found(s, ac_buf_detach(&path), source, &st);
next:
		ac_buf_free(&path);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Gemini's chats: <dir>/<project>/chats/ and one folder down (a
 * sub-agent's); the project folders hold other JSON Lines (logs/). */
static int walk_gemini(scan *s, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		ac_buf chats = AC_BUF_INIT;

		if (rc == 0 && names[i]->d_name[0] != '.' &&
		    ac_text_is_utf8(names[i]->d_name, strlen(names[i]->d_name))) {
			if (ac_buf_printf(&chats, "%s/%s/chats", dir, names[i]->d_name))
				rc = ac_error_set(AC_ENOMEM, "out of memory");
			else
				rc = walk(s, chats.data, AC_USAGE_GEMINI, DEPTH_MAX - 1);
		}
		ac_buf_free(&chats);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* ---- the set ---- */

static int push(ac_usage_set *set, const ac_usage_bucket *b)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 1024;
		ac_usage_bucket *grown = realloc(set->buckets, cap * sizeof(*grown));

		if (!grown)
			return ac_error_set(AC_ENOMEM, "out of memory");
		set->buckets = grown;
		set->cap = cap;
	}
	set->buckets[set->n++] = *b;
	return 0;
}

/* agentctl's own rows: one bucket per row (they are few). Carried rows
 * (totals from before rows were kept) have no time and are left out. */
static int add_rows(ac_usage_set *set, const char *sessions_dir)
{
	ac_buf dir = AC_BUF_INIT;
	struct dirent **names = NULL;
	int n, rc = 0;

	if (!(set->rows = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	ac_buf_printf(&dir, "%s/.usage", sessions_dir);
	n = dir.data ? scandir(dir.data, &names, NULL, alphasort) : -1;
	for (int i = 0; i < n; i++) {
		char id[256];
		json_t *loaded = NULL, *row;
		size_t k;

		if (!rc && wanted(dir.data, names[i]->d_name, AC_USAGE_AGENTCTL) &&
		    strlen(names[i]->d_name) < sizeof(id) &&
		    ac_turn_usage_load(&loaded, sessions_dir, stem(id, sizeof(id), names[i]->d_name),
				       NULL) == 0) {
			/* The id goes in JSON: one that is not UTF-8 (a session
			 * id may hold any byte past ASCII) is counted, not read. */
			if (!ac_text_is_utf8(id, strlen(id))) {
				set->files_skipped++;
				json_decref(loaded);
				goto next;
			}
			if (json_array_append_new(set->rows, json_string(id))) {
				json_decref(loaded);
				loaded = NULL;
			}
			if (!loaded || json_array_append_new(set->rows, loaded)) {
				rc = ac_error_set(AC_ENOMEM, "out of memory");
				goto next;
			}
			json_array_foreach(json_object_get(loaded, "turns"), k, row) {
				const json_t *u = json_object_get(row, "usage");
				const char *when = json_string_value(json_object_get(row, "timestamp"));
				ac_usage_bucket b = {AC_USAGE_AGENTCTL, NULL, "", "", 0, 0, 0, 1, {0}, NULL, 0};

				if (!when || ac_time_parse(&b.first_ms, when) != 0)
					continue;
				/* The id string lives in set->rows, as the model does. */
				b.session_id = json_string_value(
					json_array_get(set->rows, json_array_size(set->rows) - 2));
				b.model = json_string_value(json_object_get(u, "model"))
						  ? json_string_value(json_object_get(u, "model"))
						  : "";
				b.last_ms = b.first_ms;
				b.hour_ms = b.first_ms - ((b.first_ms % 3600000 + 3600000) % 3600000);
				b.counts.input = (uint64_t)json_integer_value(json_object_get(u, "inputTokens"));
				b.counts.output = (uint64_t)json_integer_value(json_object_get(u, "outputTokens"));
				b.counts.cache_create = (uint64_t)json_integer_value(
					json_object_get(u, "cacheCreationInputTokens"));
				b.counts.cache_read = (uint64_t)json_integer_value(
					json_object_get(u, "cacheReadInputTokens"));
				b.counts.reasoning =
					(uint64_t)json_integer_value(json_object_get(u, "reasoningTokens"));
				if ((rc = push(set, &b)))
					break;
			}
		}
next:
		free(names[i]);
	}
	free(names);
	ac_buf_free(&dir);
	return rc;
}

/* agentctl's rows kept in a store that sums them itself (a database):
 * one bucket per session, model and hour, summed there. The strings live
 * in set->rows. */
static int add_store_rows(ac_usage_set *set, ac_backend *b)
{
	json_t *sums = NULL, *sum;
	size_t i;
	int rc;

	if (!(set->rows = json_array()))
		return ac_error_set(AC_ENOMEM, "out of memory");
	if ((rc = b->inspector.usage_by_hour(b->impl, &sums)))
		return rc;
	if (json_array_append_new(set->rows, sums))
		return ac_error_set(AC_ENOMEM, "out of memory");
	json_array_foreach(sums, i, sum) {
#define AT(k) ((uint64_t)json_integer_value(json_array_get(sum, k)))
		ac_usage_bucket bucket = {AC_USAGE_AGENTCTL, json_string_value(json_array_get(sum, 0)),
					  "", json_string_value(json_array_get(sum, 1)),
					  (int64_t)AT(2), (int64_t)AT(3), (int64_t)AT(4), AT(5),
					  {0}, NULL, 0};

		bucket.counts.input = AT(6);
		bucket.counts.output = AT(7);
		bucket.counts.cache_create = AT(8);
		bucket.counts.cache_read = AT(9);
		bucket.counts.reasoning = AT(10);
#undef AT
		if ((rc = push(set, &bucket)))
			return rc;
	}
	return 0;
}

/* agentctl's own turn rows: from the workspace's store when it sums them
 * itself, else from the session folder's files. */
static int add_agentctl_rows(ac_usage_set *set, const ac_usage_scan_options *opts)
{
	ac_backend *b = NULL;
	int rc = 0;

	if (opts->workspace && (rc = ac_workspace_store(&b, opts->workspace)))
		return rc;
	if (b && b->inspector.usage_by_hour)
		rc = add_store_rows(set, b);
	else if (opts->sessions_dir)
		rc = add_rows(set, opts->sessions_dir);
	if (b)
		ac_workspace_store_release(opts->workspace, b);
	return rc;
}

static int lay_out(ac_usage_set *set, const ac_usage_index *index)
{
	for (size_t i = 0; i < index->n; i++) {
		const ac_usage_entry *e = &index->entries[i];
		char name[256];

		for (size_t k = 0; k < e->n_buckets; k++) {
			const ac_usage_entry_bucket *x = &e->buckets[k];
			ac_usage_bucket b = {e->source, e->state.session_id, e->state.project ? e->state.project : "",
					     x->model, x->hour_ms, x->first_ms, x->last_ms, x->calls, x->counts,
					     NULL, 0};
			int rc;

			/* A file that never named its session is named by its file. */
			if (!b.session_id) {
				stem(name, sizeof(name), e->path);
				if (!(((ac_usage_entry *)e)->state.session_id = strdup(name)))
					return ac_error_set(AC_ENOMEM, "out of memory");
				b.session_id = e->state.session_id;
			}
			if ((rc = push(set, &b)))
				return rc;
		}
	}
	return 0;
}

/* A message booked in one project's file and given too by a file of
 * another project (a transcript copied between project folders): one
 * extra bucket for the unbooked copy, marked with the owner's project
 * (ac_usage_bucket.owner_project), so that each workspace counts the
 * message once whichever file was read first. A pass over the keys; the
 * owners' table only when some key is unbooked somewhere. */
static int lay_out_copies(scan *s)
{
	const ac_usage_index *index = s->index;
	bool unbooked = false;
	int rc;

	/* Most runs have no copy: a plain pass decides before any table. */
	for (size_t e = 0; e < index->n && !unbooked; e++)
		for (size_t k = 0; k < index->entries[e].state.cap_keys && !unbooked; k++)
			unbooked = index->entries[e].state.keys[k] &&
				   index->entries[e].state.booked[k].bucket == AC_USAGE_UNBOOKED;
	if (!unbooked)
		return 0;
	free(s->owner_keys);
	free(s->owners);
	s->owner_keys = NULL;
	s->owners = NULL;
	s->cap_owners = s->n_owners = 0;
	for (size_t e = 0; e < index->n; e++) {
		const ac_usage_file_state *st = &index->entries[e].state;

		for (size_t k = 0; k < st->cap_keys; k++)
			if (st->keys[k] && st->booked[k].bucket != AC_USAGE_UNBOOKED &&
			    (rc = own(s, st->keys[k], e, false)))
				return rc;
	}
	for (size_t e = 0; e < index->n && s->cap_owners; e++) {
		const ac_usage_entry *copy = &index->entries[e];
		const ac_usage_file_state *st = &copy->state;
		const char *project = st->project ? st->project : "";

		for (size_t k = 0; k < st->cap_keys; k++) {
			size_t i;
			const ac_usage_entry *owner;
			const ac_usage_booking *held;
			const ac_usage_entry_bucket *x;

			if (!st->keys[k] || st->booked[k].bucket != AC_USAGE_UNBOOKED ||
			    !s->owner_keys[i = owner_slot(s, st->keys[k])])
				continue;
			owner = &index->entries[s->owners[i]];
			if (!strcmp(owner->state.project ? owner->state.project : "", project) ||
			    !(held = ac_usage_file_state_booking(&owner->state, st->keys[k])) ||
			    held->bucket >= owner->n_buckets)
				continue;
			x = &owner->buckets[held->bucket];
			{
				ac_usage_bucket b = {copy->source, st->session_id ? st->session_id : "",
						     project, x->model, x->hour_ms, x->first_ms, x->last_ms, 1,
						     {held->counts[0], held->counts[1], held->counts[2],
						      held->counts[3], 0},
						     owner->state.project ? owner->state.project : "",
						     st->keys[k]};

				if ((rc = push(s->set, &b)))
					return rc;
			}
		}
	}
	return 0;
}

/* Archived Codex rollouts: <codex home>/archived_sessions/, beside the
 * sessions folder, flat (codex-rs rollout/src/recorder.rs). */
static int walk_archived(scan *s, const char *codex_dir)
{
	const char *slash = codex_dir ? strrchr(codex_dir, '/') : NULL;
	ac_buf dir = AC_BUF_INIT;
	int rc;

	if (!slash || strcmp(slash, "/sessions"))
		return 0;
	if ((rc = ac_buf_printf(&dir, "%.*sarchived_sessions", (int)(slash - codex_dir + 1),
				codex_dir)) == 0)
		rc = walk(s, dir.data, AC_USAGE_CODEX, DEPTH_MAX);
	ac_buf_free(&dir);
	return rc;
}

int ac_usage_scan(ac_usage_set *out, const ac_usage_scan_options *opts)
{
	scan s = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = ac_struct_version_check("ac_usage_scan_options", opts->version,
					  AC_USAGE_SCAN_OPTIONS_VERSION,
					  "AC_USAGE_SCAN_OPTIONS_INIT")))
		return rc;
	s.set = out;
	s.cancel = opts->cancel;
	if ((rc = ac_usage_index_load(&s.index, &out->index_rebuilt, opts->index_path)))
		return rc;
	out->index = s.index;
	if (s.index->n && !(s.by_path = malloc(s.index->n * sizeof(*s.by_path)))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < s.index->n; i++)
		s.by_path[i] = i;
	s.by_path_n = s.index->n;
	if (s.by_path_n)
		qsort_r(s.by_path, s.by_path_n, sizeof(*s.by_path), by_path_cmp, s.index->entries);
	if ((opts->claude_dir && (rc = walk(&s, opts->claude_dir, AC_USAGE_CLAUDE, 0))) ||
	    (opts->codex_dir && (rc = walk(&s, opts->codex_dir, AC_USAGE_CODEX, 0))) ||
	    (rc = walk_archived(&s, opts->codex_dir)) ||
	    (opts->gemini_dir && (rc = walk_gemini(&s, opts->gemini_dir))) ||
	    (rc = visit_found(&s)))
		goto done;
	if ((rc = rebook_orphans(&s)))
		goto done;
	/* Files that are gone leave the index (and the report). */
	{
		size_t kept = 0;

		for (size_t i = 0; i < s.index->n; i++) {
			if (s.index->entries[i].seen)
				s.index->entries[kept++] = s.index->entries[i];
			else
				ac_usage_entry_clear(&s.index->entries[i]);
		}
		s.index->n = kept;
	}
	if (opts->index_path && (out->files_read || out->index_rebuilt || s.by_path_n != s.index->n) &&
	    ac_usage_index_save(s.index, opts->index_path) != 0 &&
	    !(out->index_unsaved = strdup(ac_error_last()))) {
		rc = ac_error_set(AC_ENOMEM, "out of memory");
		goto done;
	}
	if ((rc = lay_out(out, s.index)) || (rc = lay_out_copies(&s)))
		goto done;
	rc = add_agentctl_rows(out, opts);
done:
	for (size_t i = 0; i < s.n_found; i++)
		free((char *)s.ahead[i].path);
	free(s.ahead);
	free(s.sources);
	free(s.by_path);
	free(s.owner_keys);
	free(s.owners);
	if (rc)
		ac_usage_set_free(out);
	return rc;
}

void ac_usage_set_free(ac_usage_set *set)
{
	free(set->buckets);
	free(set->index_unsaved);
	ac_usage_index_free(set->index);
	json_decref(set->rows);
	memset(set, 0, sizeof(*set));
}
