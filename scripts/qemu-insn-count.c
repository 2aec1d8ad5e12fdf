/*
 * A qemu TCG plugin that counts the guest instructions a user-mode process
 * executes and prints the total at exit ("insns: N"), for
 * scripts/aarch64-counts.py (issue 59: there is no ARM hardware here, so
 * aarch64 speed is compared as instructions executed under emulation).
 *
 * Debian ships qemu-user with plugin support (-plugin) but not the plugin
 * header, so the few declarations needed are written out below from the
 * plugin API as qemu documents it (docs/devel/tcg-plugins.rst, API version
 * 1, qemu 7.x-8.x). Each translated block adds its instruction count to
 * one counter inline when it executes: exact for a single-threaded run.
 *
 * Build: gcc -shared -fPIC -O2 -o qemu-insn-count.so qemu-insn-count.c
 * Use:   qemu-aarch64 -plugin ./qemu-insn-count.so -d plugin -D LOG PROGRAM
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*udata_cb)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, udata_cb cb, void *userdata);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
                                             qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void *userdata) {
    char line[64];
    (void)id;
    (void)userdata;
    snprintf(line, sizeof line, "insns: %llu\n", (unsigned long long)executed);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const struct qemu_info_t *info,
                                                               int argc, char **argv) {
    (void)info;
    (void)argc;
    (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, on_exit, NULL);
    return 0;
}
