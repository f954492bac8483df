/* SPDX-License-Identifier: MIT */
/*
 * test_bpf_core.c - iolatd's BPF program takes no kernel constant from the
 * build host (issue 20, defect 6: the request flag bits __REQ_SWAP and
 * __REQ_META were compiled in from the host's vmlinux.h, and they differ
 * between 6.1 and 6.18). Every identifier of the program's source that is
 * an enumerator of the kernel's BTF must be read through a CO-RE
 * enum-value relocation, which the object's .BTF.ext lists; the bpf(2)
 * UAPI's own constants (BPF_*, fixed by the syscall's ABI) and C's
 * true/false are exempt. The
 * known ones are checked by name as well. Skips without a BPF build, its
 * object (build dir from $O) or the kernel's BTF.
 * Context: single-threaded cmocka program.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifdef CONFIG_HAVE_BPF
#include <bpf/btf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <unistd.h>

#include "util/readfile.h"

#define SRC "src/daemon/sys/bpf/iolatd.bpf.c"
#define MAX_NAMES 64

/* The header of a .BTF.ext section (as libbpf lays it out; the CO-RE part from 5.x on). */
struct ext_header {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len, line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};


static char relocated[MAX_NAMES][64];
static unsigned nr_relocated;

static char obj_path[512];

/* The object is there (built with the program). */
static int access_ok_obj(void)
{
	FILE *f = fopen(obj_path, "rb");

	if (!f)
		return -1;
	fclose(f);
	return 0;
}

static bool is_relocated(const char *name)
{
	for (unsigned i = 0; i < nr_relocated; i++)
		if (!strcmp(relocated[i], name))
			return true;
	return false;
}

/* The enumerator an ENUMVAL relocation names: the enum @type_id's value number @access. */
static void note_enumval(const struct btf *btf, uint32_t type_id, const char *access)
{
	const struct btf_type *t = btf__type_by_id(btf, type_id);
	unsigned idx = (unsigned)atoi(access);

	assert_non_null(t);
	assert_true(btf_is_enum(t));
	assert_true(idx < btf_vlen(t));
	if (nr_relocated < MAX_NAMES)
		snprintf(relocated[nr_relocated++], 64, "%s", btf__name_by_offset(btf, btf_enum(t)[idx].name_off));
}

/* The object's .BTF.ext section, read with libelf into @buf. Return: its size, 0 if none. */
static size_t read_btf_ext(uint8_t *buf, size_t cap)
{
	int fd = open(obj_path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t shstrndx, got = 0;
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF.ext") || !(data = elf_getdata(scn, NULL)))
			continue;
		got = data->d_size < cap ? data->d_size : 0;
		memcpy(buf, data->d_buf, got);
	}
	elf_end(elf);
	close(fd);
	return got;
}

static void read_relocations(void)
{
	static uint8_t raw[1 << 20];
	struct btf *btf = btf__parse_elf(obj_path, NULL);
	size_t size = read_btf_ext(raw, sizeof(raw));
	const struct ext_header *h = (const struct ext_header *)raw;
	const uint8_t *p, *end;
	uint32_t rec;

	assert_non_null(btf);
	assert_true(size >= sizeof(*h) && h->hdr_len >= sizeof(*h));
	p = raw + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	assert_true(h->core_relo_len > 4 && end <= raw + size);
	rec = *(const uint32_t *)p;
	for (p += 4; p + 8 <= end;) {
		uint32_t n = ((const uint32_t *)p)[1];

		p += 8;
		for (uint32_t i = 0; i < n; i++, p += rec) {
			const uint32_t *r = (const uint32_t *)p; /* insn_off, type_id, access_str_off, kind */

			if (r[3] == BPF_CORE_ENUMVAL_VALUE || r[3] == BPF_CORE_ENUMVAL_EXISTS)
				note_enumval(btf, r[1], btf__name_by_offset(btf, r[2]));
		}
	}
	btf__free(btf);
}

/* Is @name an enumerator of some enum of the kernel's BTF? */
static bool kernel_enumerator(const struct btf *vm, const char *name)
{
	static const struct btf *cached;
	static char **names;
	static size_t n;

	if (cached != vm) {
		size_t cap = 0;

		cached = vm;
		for (uint32_t id = 1; id < btf__type_cnt(vm); id++) {
			const struct btf_type *t = btf__type_by_id(vm, id);

			for (uint16_t j = 0; btf_is_enum(t) && j < btf_vlen(t); j++) {
				if (n == cap)
					names = realloc(names, (cap = cap ? cap * 2 : 4096) * sizeof(*names));
				names[n++] = (char *)btf__name_by_offset(vm, btf_enum(t)[j].name_off);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Each identifier of the source outside comments, strings and #include lines. */
static unsigned check_source(const struct btf *vm, char *src)
{
	unsigned checked = 0;

	for (char *c = src; *c;) {
		if (c[0] == '/' && c[1] == '*') {
			char *e = strstr(c + 2, "*/");
			c = e ? e + 2 : c + strlen(c);
		} else if ((c[0] == '/' && c[1] == '/') || c[0] == '#') {
			c += strcspn(c, "\n");
		} else if (*c == '"') {
			for (c++; *c && *c != '"'; c++)
				c += *c == '\\' && c[1];
			c += *c == '"';
		} else if (isalpha((unsigned char)*c) || *c == '_') {
			char word[64];
			size_t len = 0;

			while ((isalnum((unsigned char)*c) || *c == '_') && len < sizeof(word) - 1)
				word[len++] = *c++;
			word[len] = '\0';
			/* BPF_*: the bpf(2) UAPI, fixed by its ABI; true/false: C's, an enum in the BTF. */
			if (strncmp(word, "BPF_", 4) && strcmp(word, "true") && strcmp(word, "false") &&
			    kernel_enumerator(vm, word)) {
				if (!is_relocated(word))
					fail_msg("%s uses the kernel constant %s as the build host's value: "
						 "read it with bpf_core_enum_value()", SRC, word);
				checked++;
			}
		} else {
			c++;
		}
	}
	return checked;
}

static void test_every_kernel_constant_relocated(void **state)
{
	const char *o = getenv("O");
	struct btf *vm;
	size_t len;
	char *src;

	snprintf(obj_path, sizeof(obj_path), "%s/bpf/iolatd.bpf.o", o && *o ? o : "build");
	if (iolat_read_file(SRC, 1 << 20, &src, &len)) {
		skip();
		return;
	}
	vm = btf__parse("/sys/kernel/btf/vmlinux", NULL);
	if (!vm || access_ok_obj() != 0) {
		free(src);
		btf__free(vm);
		skip();
		return;
	}
	read_relocations();
	/* The ones issue 20 named, by name. */
	assert_true(is_relocated("__REQ_SWAP"));
	assert_true(is_relocated("__REQ_META"));
	assert_true(is_relocated("REQ_OP_WRITE"));
	assert_true(check_source(vm, src) >= 4);
	btf__free(vm);
	free(src);
}
#endif

int main(void)
{
#ifdef CONFIG_HAVE_BPF
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kernel_constant_relocated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
#else
	printf("skip: iolatd built without BPF\n");
	return 77;
#endif
}
