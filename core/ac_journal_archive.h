/* What ac_journal.c (rotation) and ac_journal_archive.c (the archives'
 * listing) share. Internal to the core. */
#ifndef AC_JOURNAL_ARCHIVE_H
#define AC_JOURNAL_ARCHIVE_H

/* Splits "dir/JOURNAL.jsonl" into the folder ("dir", or ".") and the stem
 * ("JOURNAL"), the parts archive names are built from. Both allocated. */
int ac_journal_split_path(char **out_dir, char **out_stem, const char *path);

#endif
