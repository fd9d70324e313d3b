/* The differential test's steps: each draws a handle, a call and its arguments from the PRNG and prints what the
 * call returned; asynchronous calls log their completions, watchers their calls (differential.c). The draws stay
 * within what both libraries define: no calls Debian's library crashes on (a NULL buffer with room, NULL data with
 * a positive length, an asynchronous local removal) and none of the documented differences (a chrooted handle's
 * relative paths and getconfig, TTL and container ops in a multi): docs/libzookeeper.md#differences. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential.h"

/* --- arguments ------------------------------------------------------------------------------------------------- */

/* Few paths, some twice as likely, so that calls meet each other's nodes and watches. */
static const char* const nodes[] = {"/a", "/a", "/b", "/a/c", "/a/c", "/a/d", "/b/e", "/a/s-"};
enum { node_count = sizeof nodes / sizeof nodes[0] };

/* A node path for handle h (A: under the run's root; B: chrooted), with `bad` sometimes one every library refuses
 * (handle A only: a chrooted handle's relative paths differ, docs/libzookeeper.md#differences). */
static void draw_path(const struct dt_handle* h, char* out, size_t size, int bad) {
  if (bad && h->tag == 'A' && dt_pick(20) == 0) {
    static const char* const bad[] = {"", "rel", "/x/", "//y"};
    snprintf(out, size, "%s", bad[dt_pick(4)]);
    return;
  }
  snprintf(out, size, "%s%s", h->tag == 'A' ? dt.root : "", nodes[dt_pick(node_count)]);
}

struct data_arg {
  const char* value;
  int len;
};
static struct data_arg draw_data(void) {
  static const struct data_arg data[] = {{"x", 1}, {"", 0}, {NULL, 0}, {NULL, -1}, {"abcdef", 6}, {"abc", -1}};
  return data[dt_pick(6)];
}

static int draw_mode(const char* path) {
  /* The mode constants are variables in the C client's header. */
  if (strstr(path, "/s-") != NULL) return dt_pick(2) ? ZOO_SEQUENCE : ZOO_EPHEMERAL_SEQUENTIAL;
  return dt_pick(3) == 0 ? ZOO_EPHEMERAL : ZOO_PERSISTENT;
}

static int draw_version(void) { return (int)dt_pick(3) - 1; } /* -1 (any), 0, 1 */

/* A watcher: the handle's (watch=1, index -1) or one of three functions with one of two contexts. */
struct watch_arg {
  int index; /* -1: watch=1 */
  watcher_fn fn;
  void* context;
  char name[16];
};
static struct watch_arg draw_watcher(int allow_global) {
  struct watch_arg w;
  w.index = allow_global && dt_pick(3) == 0 ? -1 : (int)dt_pick(3);
  w.fn = w.index < 0 ? NULL : dt_watchers[w.index];
  w.context = w.index < 0 ? NULL : dt_contexts[dt_pick(2)];
  if (w.index < 0) {
    snprintf(w.name, sizeof w.name, "watch=1");
  } else {
    snprintf(w.name, sizeof w.name, "w%d/%s", w.index, dt_context_name(w.context));
  }
  return w;
}

/* The watchers the last calls asked for, per handle: a removal names one of them most of the time, so that removals
 * meet watches (and other watchers on the same path) often enough. */
struct armed {
  char path[256];
  struct watch_arg watcher;
};
static struct armed recent[2][8];
static unsigned recent_count[2];

static void remember(const struct dt_handle* h, const char* path, const struct watch_arg* w) {
  const int i = h->tag == 'A' ? 0 : 1;
  struct armed* slot = &recent[i][recent_count[i]++ % 8];
  snprintf(slot->path, sizeof slot->path, "%s", path);
  slot->watcher = *w;
}

/* A watcher and path for a removal: mostly one a recent call on this handle asked for. */
static void draw_removal(const struct dt_handle* h, char* path, size_t size, struct watch_arg* w) {
  const int i = h->tag == 'A' ? 0 : 1;
  *w = draw_watcher(1);
  if (recent_count[i] == 0 || dt_pick(4) == 0) return;
  const unsigned n = recent_count[i] < 8 ? recent_count[i] : 8;
  const struct armed* slot = &recent[i][dt_pick(n)];
  snprintf(path, size, "%s", slot->path);
  *w = slot->watcher;
}

/* --- completions ----------------------------------------------------------------------------------------------- */

/* What an asynchronous call's completion logs: its step, its handle. */
struct call_tag {
  int step;
  struct dt_handle* h;
};
static struct call_tag tags[4096];
static const void* tag_of(int step, struct dt_handle* h) {
  struct call_tag* t = &tags[step % 4096];
  t->step = step;
  t->h = h;
  return t;
}

static void on_void(int rc, const void* data) {
  const struct call_tag* t = data;
  dt_log(t->h, "  done %d rc=%d", t->step, rc);
}
static void on_string(int rc, const char* value, const void* data) {
  const struct call_tag* t = data;
  char shown[512];
  dt_log(t->h, "  done %d rc=%d value=%s", t->step, rc, value ? dt_path(shown, sizeof shown, value) : "NULL");
}
static void on_string_stat(int rc, const char* value, const struct Stat* stat, const void* data) {
  const struct call_tag* t = data;
  char shown[512];
  char stat_text[256];
  dt_log(t->h, "  done %d rc=%d value=%s %s", t->step, rc, value ? dt_path(shown, sizeof shown, value) : "NULL",
         dt_stat(stat_text, sizeof stat_text, stat));
}
static void on_stat(int rc, const struct Stat* stat, const void* data) {
  const struct call_tag* t = data;
  char stat_text[256];
  dt_log(t->h, "  done %d rc=%d %s", t->step, rc, dt_stat(stat_text, sizeof stat_text, stat));
}
static void on_data(int rc, const char* value, int len, const struct Stat* stat, const void* data) {
  const struct call_tag* t = data;
  char shown[128];
  char stat_text[256];
  dt_log(t->h, "  done %d rc=%d data=%s %s", t->step, rc, dt_data(shown, sizeof shown, value, len),
         dt_stat(stat_text, sizeof stat_text, stat));
}

static int compare_strings(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}
/* Children sorted: the server lists them in no particular order. */
static const char* children_text(char* out, size_t size, const struct String_vector* children) {
  if (children == NULL) return "NULL";
  qsort(children->data, (size_t)children->count, sizeof *children->data, compare_strings);
  size_t used = (size_t)snprintf(out, size, "[");
  for (int i = 0; i < children->count && used < size; ++i) {
    used += (size_t)snprintf(out + used, size - used, "%s%s", i ? "," : "", children->data[i]);
  }
  if (used < size) snprintf(out + used, size - used, "]");
  return out;
}
static void on_strings_stat(int rc, const struct String_vector* strings, const struct Stat* stat, const void* data) {
  const struct call_tag* t = data;
  char text[512];
  char stat_text[256];
  struct String_vector copy = strings ? *strings : (struct String_vector){0, NULL};
  dt_log(t->h, "  done %d rc=%d children=%s %s", t->step, rc,
         strings ? children_text(text, sizeof text, &copy) : "NULL", dt_stat(stat_text, sizeof stat_text, stat));
}

/* --- multi ----------------------------------------------------------------------------------------------------- */

struct multi_call {
  int count;
  zoo_op_t ops[3];
  zoo_op_result_t results[3];
  char paths[3][256];
  char buffers[3][64];
  struct Stat stats[3];
};
static struct multi_call multis[4096];

static void draw_multi(const struct dt_handle* h, struct multi_call* m) {
  memset(m, 0, sizeof *m);
  m->count = 1 + (int)dt_pick(3);
  for (int i = 0; i < m->count; ++i) {
    /* Debian's library frees an uninitialized pointer when an op follows one with an invalid path: only the last
     * op may have one. */
    draw_path(h, m->paths[i], sizeof m->paths[i], i == m->count - 1);
    memset(m->buffers[i], '#', sizeof m->buffers[i] - 1);
    memset(&m->stats[i], 0x5a, sizeof m->stats[i]);
    const struct data_arg d = draw_data();
    switch (dt_pick(4)) {
      case 0:
        zoo_create_op_init(&m->ops[i], m->paths[i], d.value, d.len, &ZOO_OPEN_ACL_UNSAFE, draw_mode(m->paths[i]),
                           m->buffers[i], (int)dt_pick(2) ? (int)sizeof m->buffers[i] : 6);
        break;
      case 1:
        zoo_delete_op_init(&m->ops[i], m->paths[i], draw_version());
        break;
      case 2:
        zoo_set_op_init(&m->ops[i], m->paths[i], d.value, d.len, draw_version(), &m->stats[i]);
        break;
      default:
        zoo_check_op_init(&m->ops[i], m->paths[i], draw_version());
        break;
    }
  }
}

/* The results of a multi: into the handle's log from its completion, or printed after zoo_multi returned (h NULL:
 * the watchers it fired may still be running on the completion thread). */
static void log_multi(struct dt_handle* h, int step, int rc, const struct multi_call* m) {
  char line[1024];
  snprintf(line, sizeof line, "  multi %d rc=%d", step, rc);
  if (h != NULL) {
    dt_log(h, "%s", line);
  } else {
    printf("%s\n", line);
  }
  for (int i = 0; i < m->count; ++i) {
    const zoo_op_result_t* r = &m->results[i];
    char shown[256];
    char stat_text[256];
    const int create = m->ops[i].type == ZOO_CREATE_OP;
    const int set = m->ops[i].type == ZOO_SETDATA_OP;
    snprintf(line, sizeof line, "    op %d type=%d err=%d%s%s%s%s buffer=%s", i, m->ops[i].type, r->err,
             create ? " value=" : "",
             create ? (r->value == NULL ? "NULL" : dt_path(shown, sizeof shown, r->value)) : "", set ? " " : "",
             set ? (r->stat == NULL ? "stat=NULL" : dt_stat(stat_text, sizeof stat_text, r->stat)) : "",
             m->buffers[i][0] == '#' ? "untouched" : "written");
    if (h != NULL) {
      dt_log(h, "%s", line);
    } else {
      printf("%s\n", line);
    }
  }
}

static void on_multi(int rc, const void* data) {
  const struct call_tag* t = data;
  log_multi(t->h, t->step, rc, &multis[t->step % 4096]);
}

/* --- steps ----------------------------------------------------------------------------------------------------- */

void dt_step(int index) {
  struct dt_handle* h = &dt.handles[dt_pick(5) < 3 ? 0 : 1];
  zhandle_t* zh = h->zh;
  char path[256];
  char shown[256];
  char text[512];
  char stat_text[256];
  struct Stat stat;
  memset(&stat, 0, sizeof stat);
  draw_path(h, path, sizeof path, 1);
  dt_path(shown, sizeof shown, path);
  const void* tag = tag_of(index, h);
  printf("%d %c ", index, h->tag);
  int rc = 0;
  switch (dt_pick(16)) {
    case 0: {
      const struct data_arg d = draw_data();
      const int mode = draw_mode(path);
      char created[64];
      const int room = (int)dt_pick(3) * 8;
      memset(created, '#', sizeof created);
      rc = zoo_create2(zh, path, d.value, d.len, &ZOO_OPEN_ACL_UNSAFE, mode, created, room, &stat);
      char created_shown[256];
      printf("create2 %s data=%s mode=%d room=%d -> %d path=%s %s\n", shown, dt_data(text, sizeof text, d.value, d.len),
             mode, room, rc, rc == ZOK && room > 0 ? dt_path(created_shown, sizeof created_shown, created) : "-",
             rc == ZOK ? dt_stat(stat_text, sizeof stat_text, &stat) : "");
      break;
    }
    case 1: {
      const struct data_arg d = draw_data();
      const int mode = draw_mode(path);
      if (dt_pick(2)) {
        rc = zoo_acreate(zh, path, d.value, d.len, &ZOO_OPEN_ACL_UNSAFE, mode, on_string, tag);
      } else {
        rc = zoo_acreate2(zh, path, d.value, d.len, &ZOO_OPEN_ACL_UNSAFE, mode, on_string_stat, tag);
      }
      printf("acreate %s data=%s mode=%d -> %d\n", shown, dt_data(text, sizeof text, d.value, d.len), mode, rc);
      break;
    }
    case 2: {
      const int version = draw_version();
      if (dt_pick(2)) {
        rc = zoo_delete(zh, path, version);
      } else {
        rc = zoo_adelete(zh, path, version, on_void, tag);
      }
      printf("delete %s version=%d -> %d\n", shown, version, rc);
      break;
    }
    case 3: {
      const struct data_arg d = draw_data();
      const int version = draw_version();
      const int form = (int)dt_pick(3);
      if (form == 0) {
        rc = zoo_set2(zh, path, d.value, d.len, version, &stat);
      } else if (form == 1) {
        rc = zoo_set(zh, path, d.value, d.len, version);
      } else {
        rc = zoo_aset(zh, path, d.value, d.len, version, on_stat, tag);
      }
      printf("set(%d) %s data=%s version=%d -> %d %s\n", form, shown, dt_data(text, sizeof text, d.value, d.len),
             version, rc, form == 0 && rc == ZOK ? dt_stat(stat_text, sizeof stat_text, &stat) : "");
      break;
    }
    case 4:
    case 5: {
      const struct watch_arg w = draw_watcher(1);
      const int watched = dt_pick(3) != 0;
      static const int rooms[] = {-1, 0, 3, 64};
      int len = rooms[dt_pick(4)];
      const int asked = len;
      char buffer[64];
      memset(buffer, '#', sizeof buffer);
      const int null_len = dt_pick(12) == 0;
      if (watched) remember(h, path, &w);
      if (!watched || w.index < 0) {
        rc = zoo_get(zh, path, watched, buffer, null_len ? NULL : &len, &stat);
      } else {
        rc = zoo_wget(zh, path, w.fn, w.context, buffer, null_len ? NULL : &len, &stat);
      }
      printf("get %s %s len=%s%d -> %d len=%d data=%s %s\n", shown, watched ? w.name : "-", null_len ? "NULL:" : "",
             asked, rc, len, rc == ZOK ? dt_data(text, sizeof text, len >= 0 ? buffer : NULL, len) : "-",
             rc == ZOK ? dt_stat(stat_text, sizeof stat_text, &stat) : "");
      break;
    }
    case 6: {
      const struct watch_arg w = draw_watcher(1);
      remember(h, path, &w);
      if (w.index < 0) {
        rc = zoo_aget(zh, path, 1, on_data, tag);
      } else {
        rc = zoo_awget(zh, path, w.fn, w.context, on_data, tag);
      }
      printf("aget %s %s -> %d\n", shown, w.name, rc);
      break;
    }
    case 7:
    case 8: {
      const struct watch_arg w = draw_watcher(1);
      const int form = (int)dt_pick(3);
      if (form < 2) remember(h, path, &w);
      if (form == 0) {
        rc = w.index < 0 ? zoo_exists(zh, path, 1, &stat) : zoo_wexists(zh, path, w.fn, w.context, &stat);
      } else if (form == 1) {
        rc = w.index < 0 ? zoo_aexists(zh, path, 1, on_stat, tag)
                         : zoo_awexists(zh, path, w.fn, w.context, on_stat, tag);
      } else {
        rc = zoo_exists(zh, path, 0, &stat);
      }
      printf("exists(%d) %s %s -> %d %s\n", form, shown, form < 2 ? w.name : "-", rc,
             form != 1 && rc == ZOK ? dt_stat(stat_text, sizeof stat_text, &stat) : "");
      break;
    }
    case 9: {
      const struct watch_arg w = draw_watcher(1);
      const int form = (int)dt_pick(3);
      remember(h, path, &w);
      struct String_vector children = {0, NULL};
      if (form == 0) {
        rc = w.index < 0 ? zoo_get_children2(zh, path, 1, &children, &stat)
                         : zoo_wget_children2(zh, path, w.fn, w.context, &children, &stat);
        printf("children %s %s -> %d %s %s\n", shown, w.name, rc,
               rc == ZOK ? children_text(text, sizeof text, &children) : "",
               rc == ZOK ? dt_stat(stat_text, sizeof stat_text, &stat) : "");
        if (rc == ZOK) deallocate_String_vector(&children);
      } else {
        rc = w.index < 0 ? zoo_aget_children2(zh, path, 1, on_strings_stat, tag)
                         : zoo_awget_children2(zh, path, w.fn, w.context, on_strings_stat, tag);
        printf("achildren %s %s -> %d\n", shown, w.name, rc);
      }
      break;
    }
    case 10:
    case 11: {
      /* Removal: of one watcher (the handle's own watcher and context stand for watch=1), or of all. */
      static const ZooWatcherType types[] = {ZWATCHTYPE_CHILD, ZWATCHTYPE_DATA, ZWATCHTYPE_ANY};
      const ZooWatcherType type = types[dt_pick(3)];
      struct watch_arg w;
      draw_removal(h, path, sizeof path, &w);
      dt_path(shown, sizeof shown, path);
      watcher_fn fn = w.fn;
      void* context = w.context;
      if (w.index < 0) {
        fn = dt_pick(2) ? NULL : dt_global_watcher;
        context = fn != NULL ? (void*)zoo_get_context(zh) : NULL;
      }
      const int local = dt_pick(2);
      const int form = (int)dt_pick(4);
      if (form == 0) {
        rc = zoo_remove_watches(zh, path, type, fn, context, local);
      } else if (form == 1) {
        rc = zoo_remove_all_watches(zh, path, type, local);
      } else if (form == 2) {
        /* asynchronous: not local (Debian's library crashes on an asynchronous local removal) */
        rc = zoo_aremove_watches(zh, path, type, fn, context, 0, (void_completion_t*)on_void, tag);
      } else {
        rc = zoo_aremove_all_watches(zh, path, type, 0, (void_completion_t*)on_void, tag);
      }
      printf("remove(%d) %s type=%d %s%s local=%d -> %d\n", form, shown, type,
             fn == NULL ? "NULL" : (w.index < 0 ? "G/" : w.name),
             fn != NULL && w.index < 0 ? dt_context_name(context) : "", form >= 2 ? 0 : local, rc);
      break;
    }
    case 12: {
      struct multi_call* m = &multis[index % 4096];
      draw_multi(h, m);
      const int async = dt_pick(2);
      rc = async ? zoo_amulti(zh, m->count, m->ops, m->results, on_multi, tag)
                 : zoo_multi(zh, m->count, m->ops, m->results);
      printf("multi %d ops%s -> %d\n", m->count, async ? " async" : "", rc);
      for (int i = 0; i < m->count; ++i) {
        printf("  op %d type=%d %s\n", i, m->ops[i].type, dt_path(text, sizeof text, m->paths[i]));
      }
      if (!async && rc != ZMARSHALLINGERROR && rc != ZBADARGUMENTS) log_multi(NULL, index, rc, m);
      break;
    }
    case 13: {
      const int which = (int)dt_pick(4);
      zoo_set_context(zh, which < 3 ? dt_contexts[which] : dt_handle_context);
      printf("set_context %s\n", dt_context_name(zoo_get_context(zh)));
      break;
    }
    case 14: {
      rc = zoo_async(zh, path, on_string, tag);
      printf("async %s -> %d\n", shown, rc);
      break;
    }
    default: {
      if (h->tag == 'A') {
        char buffer[256];
        int len = (int)sizeof buffer;
        rc = zoo_getconfig(zh, 0, buffer, &len, &stat);
        printf("getconfig -> %d len=%d\n", rc, len);
      } else {
        struct String_vector children = {0, NULL};
        rc = zoo_get_children(zh, path, 0, &children);
        printf("children %s -> %d %s\n", shown, rc, rc == ZOK ? children_text(text, sizeof text, &children) : "");
        if (rc == ZOK) deallocate_String_vector(&children);
      }
      break;
    }
  }
}
