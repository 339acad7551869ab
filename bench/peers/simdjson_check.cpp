// A peer for the first `journal check`: every line of a JSON Lines file
// parsed by simdjson's DOM parser (which validates the whole grammar and
// UTF-8, as agentctl's scanner does, at the speed of the fastest JSON
// parser there is), on THREADS threads, each a piece of the file cut at a
// line end. Nothing else is done: no schema, no index. It answers how fast
// validation alone can go on this machine, the floor under the first
// check (docs/BENCHMARKS.md, "Issue 28: the floor under a first check").
//
//   simdjson_check FILE [THREADS [many]]     (g++ -O2, -lsimdjson: libsimdjson-dev)
//
// With "many", each piece goes to parse_many(), simdjson's reader for
// JSON Lines (one stage-1 pass over a batch of lines; the piece is copied
// into a padded buffer first, which is timed too).
//
// Prints "N valid, M invalid lines" and exits 0.
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

struct piece {
	const char *from, *to;
	size_t valid = 0, invalid = 0;
	bool many = false;
};

// The piece through parse_many(): a line that does not parse is counted
// invalid, and the stream goes on after it where simdjson can.
static void check_piece_many(piece *p)
{
	simdjson::dom::parser parser;
	simdjson::padded_string text(p->from, (size_t)(p->to - p->from));
	simdjson::dom::document_stream docs;

	if (parser.parse_many(text, 1 << 20).get(docs)) {
		p->invalid++;
		return;
	}
	for (auto doc : docs) {
		if (doc.error())
			p->invalid++;
		else
			p->valid++;
	}
}

// simdjson reads up to SIMDJSON_PADDING bytes past a document: the lines
// after a line are those bytes, and the last few lines are copied.
static void check_piece(piece *p, const char *map_end)
{
	simdjson::dom::parser parser;
	const char *line = p->from, *nl;

	if (p->many) {
		check_piece_many(p);
		return;
	}

	for (; line < p->to && (nl = (const char *)memchr(line, '\n', p->to - line)); line = nl + 1) {
		size_t len = (size_t)(nl - line);
		bool near_end = (size_t)(map_end - line) < len + simdjson::SIMDJSON_PADDING;
		auto doc = parser.parse(line, len, near_end);

		if (doc.error())
			p->invalid++;
		else
			p->valid++;
	}
}

int main(int argc, char **argv)
{
	struct stat st;
	int fd, threads = argc > 2 ? atoi(argv[2]) : 1;
	bool many = argc > 3 && strcmp(argv[3], "many") == 0;

	if (argc < 2 || threads < 1) {
		fprintf(stderr, "usage: simdjson_check FILE [THREADS [many]]\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
		perror(argv[1]);
		return 1;
	}
	const char *data = (const char *)mmap(nullptr, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
					      fd, 0);
	if (data == MAP_FAILED) {
		perror(argv[1]);
		return 1;
	}
	const char *end = data + st.st_size;
	std::vector<piece> pieces(threads);
	const char *from = data;
	for (int i = 0; i < threads; i++) {
		const char *to = i + 1 == threads ? end : data + (size_t)st.st_size / threads * (i + 1);
		const char *nl = to < end ? (const char *)memchr(to, '\n', end - to) : nullptr;

		to = nl ? nl + 1 : end;
		if (to < from)
			to = from;
		pieces[i].from = from;
		pieces[i].to = to;
		pieces[i].many = many;
		from = to;
	}
	std::vector<std::thread> running;
	for (int i = 0; i < threads; i++)
		running.emplace_back(check_piece, &pieces[i], end);
	size_t valid = 0, invalid = 0;
	for (int i = 0; i < threads; i++) {
		running[i].join();
		valid += pieces[i].valid;
		invalid += pieces[i].invalid;
	}
	printf("%zu valid, %zu invalid lines (simdjson %s)\n", valid, invalid,
	       simdjson::get_active_implementation()->name().c_str());
	munmap((void *)data, (size_t)st.st_size);
	close(fd);
	return 0;
}
