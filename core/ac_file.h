/* Small, careful file-system helpers shared by the stores. */
#ifndef AC_FILE_H
#define AC_FILE_H

#include <stddef.h>

/* Reads a regular file whole into an allocated, NUL-terminated buffer
 * (the caller frees *out). Refuses symbolic links, FIFOs, devices and
 * folders (AC_ECORRUPT, naming the file) rather than block or wander out of
 * a folder. AC_ENOTFOUND when absent. */
int ac_file_read(char **out, size_t *out_len, const char *path);

/* Like ac_file_read() for name inside the open folder dir_fd. */
int ac_file_read_at(char **out, size_t *out_len, int dir_fd, const char *name,
		    const char *shown_path);

/* Creates dir and its missing parents (mode 0755). */
int ac_file_mkdirs(const char *dir);

#endif
