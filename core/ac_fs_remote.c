/* Telling network and FUSE file systems apart with statfs(2). */
#include "ac_fs_remote.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/vfs.h>

/* Magic numbers from linux/magic.h and the file systems' own sources,
 * written out so that a header missing on an old system cannot drop one. */
static const struct {
	uint32_t magic;
	const char *name;
} remote_types[] = {
	{0x6969, "nfs"},            /* NFS v2-v4, Amazon EFS */
	{0x517B, "smb"},
	{0xFE534D42, "smb2"},
	{0xFF534D42, "cifs"},
	{0x65735546, "fuse"},       /* sshfs, virtiofs, gcsfuse, s3fs... */
	{0x00C36400, "ceph"},
	{0x0BD00BD0, "lustre"},
	{0x01021997, "9p"},         /* WSL and VM shares */
	{0x5346414F, "afs"},
	{0x6B414653, "afs"},        /* kAFS */
	{0x47504653, "gpfs"},
	{0x7461636F, "ocfs2"},
	{0x01161970, "gfs2"},
	{0xAAD7AAEA, "panfs"},
	{0x73757245, "coda"},
	{0x564C, "ncp"},
};

const char *ac_fs_remote_name(long fs_type)
{
	/* f_type is signed on some ABIs: its low 32 bits are the magic. */
	uint32_t magic = (uint32_t)fs_type;

	for (size_t i = 0; i < sizeof(remote_types) / sizeof(remote_types[0]); i++)
		if (remote_types[i].magic == magic)
			return remote_types[i].name;
	return NULL;
}

bool ac_fs_is_remote(const char *path, const char **out_name)
{
	struct statfs st;
	const char *name;

	if (out_name)
		*out_name = NULL;
	if (!path || statfs(path, &st) != 0)
		return false;
	name = ac_fs_remote_name((long)st.f_type);
	if (out_name)
		*out_name = name;
	return name != NULL;
}
