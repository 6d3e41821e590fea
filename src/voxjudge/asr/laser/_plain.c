/* LASER's streamed path for plain lines, compiled (stream.py's ChunkScorer uses it; the Python
 * path stays the reference and scores every other line).
 *
 * A plain line is ASCII letters, digits and spaces: each word's alignment key, WER token and
 * spelling fold are its lower case, so a line is read as spans of its bytes and word ids (a table
 * of this kernel's: a word's and its key's), never as Python strings. ``align`` aligns the keys
 * with rapidfuzz, makes the runs of identical words and the pairs (one word for one, words on one
 * side, a word that differs only in case, swaps; a stretch with words on both sides through the
 * alignment programme, called back in Python), flags speech phenomena, finds each pair's label (or
 * asks for it) and returns a compact entry; a line it cannot score as the Python path would gives
 * None and goes the Python way, before anything is asked of the judge. ``finish`` writes that
 * entry's record line and figures once the chunk's new pairs are labelled.
 * tests/asr/test_laser_plain_kernel.py holds both paths to the same records, figures, tally and
 * judge requests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* room for n items of size bytes at *p (capacity *cap, in items) */
static int ensure(void **p, Py_ssize_t *cap, Py_ssize_t n, size_t size) {
    if (n <= *cap)
        return 0;
    Py_ssize_t grown = *cap ? *cap : 256;
    while (grown < n)
        grown *= 2;
    void *q = PyMem_Realloc(*p, grown * size);
    if (!q) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = grown;
    return 0;
}

/* ---- the word table ------------------------------------------------------------------------ */

#define MAX_ARENA (64 << 20) /* bytes of words the table keeps before it starts again */

typedef struct {
    uint64_t hash;
    Py_ssize_t at; /* offset in the arena */
    int32_t len;
    int32_t id; /* -1: empty slot */
} Slot;

typedef struct {
    PyObject_HEAD
    /* words */
    Slot *slots;
    Py_ssize_t n_slots, n_words;
    char *arena;
    Py_ssize_t arena_len, arena_cap;
    Py_ssize_t *word_at; /* id -> (offset, length) */
    int32_t *word_len;
    signed char *filler; /* id -> 1 filler, 0 not, -1 not asked yet */
    PyObject **word_str; /* id -> the word as a str, made when a pair needs it */
    Py_ssize_t ids_cap;
    /* settings */
    PyObject *editops;     /* rapidfuzz.distance.Levenshtein.editops */
    PyObject *pair_class;  /* align.RubricPair */
    PyObject *fillers;     /* frozenset of the language's fillers */
    PyObject *lang;        /* str */
    PyObject *string;      /* json.encoder.encode_basestring */
    PyObject *identical;   /* (before, between, after) bytes: an identical pair's JSON around its word */
    PyObject *head_mid;    /* bytes: ', "lang": ..., "judge": ..., "embedder": ..., ' */
    PyObject *laser_json;  /* dict-like: laser -> (laser_calibrated, its JSON text) */
    PyObject *region;      /* region(ref words, hyp words, r0, h0) -> the programme's RubricPairs */
    int wanted;            /* the per-utterance WER is wanted */
    int records;
    double checked_pairs;  /* longer lines go the Python way (interruptible there) */
    Py_ssize_t max_words;  /* words of both sides above which a line goes the Python way */
    Py_ssize_t max_ids;    /* the table starts again past this many words */
    int busy; /* align is running: it calls back into Python, which must not re-enter it or clear */
    /* scratch */
    Py_ssize_t *spans; /* (offset, length) per word of ref then hyp */
    Py_ssize_t spans_cap;
    int32_t *ids;
    Py_ssize_t ids_scratch_cap;
    Py_ssize_t *ops; /* a line's opcodes as (equal, i1, i2, j1) */
    Py_ssize_t ops_cap;
    char *lower; /* a word in lower case, while its key's id is found */
    Py_ssize_t lower_cap;
    void *protos; /* the pairs and runs of a line (Proto), before their labels */
    Py_ssize_t protos_cap;
} Kernel;

static PyObject *s_ref, *s_hyp, *s_op, *s_ref_start, *s_hyp_start, *s_merge;
static PyObject *s_substitute, *s_insert, *s_delete, *s_swap, *s_filler, *s_repetition, *s_false_start, *s_empty, *s_match,
    *s_as_opcodes, *s_as_list, *s_equal;

/* Python's own hash of bytes: keyed (SipHash, randomised per process as str hashes are), so no
 * input can be made to collide in the table (an unkeyed hash let crafted words slow it down
 * quadratically) */
static uint64_t hash_bytes(const char *p, Py_ssize_t n) {
#if PY_VERSION_HEX >= 0x030E0000
    uint64_t h = (uint64_t)Py_HashBuffer(p, n);
#else
    uint64_t h = (uint64_t)_Py_HashBytes(p, n);
#endif
    return h ? h : 1;
}

static void kernel_clear_words(Kernel *self) {
    for (Py_ssize_t k = 0; k < self->n_words; k++)
        Py_CLEAR(self->word_str[k]);
    for (Py_ssize_t k = 0; k < self->n_slots; k++)
        self->slots[k].id = -1;
    self->n_words = 0;
    self->arena_len = 0;
}

static int grow_ids(Kernel *self) {
    Py_ssize_t cap = self->ids_cap ? 2 * self->ids_cap : 4096;
    Py_ssize_t *at = PyMem_Realloc(self->word_at, cap * sizeof(Py_ssize_t));
    if (!at)
        return -1;
    self->word_at = at;
    int32_t *len = PyMem_Realloc(self->word_len, cap * sizeof(int32_t));
    if (!len)
        return -1;
    self->word_len = len;
    signed char *fl = PyMem_Realloc(self->filler, cap);
    if (!fl)
        return -1;
    self->filler = fl;
    PyObject **ws = PyMem_Realloc(self->word_str, cap * sizeof(PyObject *));
    if (!ws)
        return -1;
    self->word_str = ws;
    self->ids_cap = cap;
    return 0;
}

static int rehash(Kernel *self, Py_ssize_t n_slots) {
    Slot *slots = PyMem_Malloc(n_slots * sizeof(Slot));
    if (!slots)
        return -1;
    for (Py_ssize_t k = 0; k < n_slots; k++)
        slots[k].id = -1;
    for (Py_ssize_t k = 0; k < self->n_slots; k++) {
        Slot s = self->slots[k];
        if (s.id < 0)
            continue;
        Py_ssize_t i = (Py_ssize_t)(s.hash & (uint64_t)(n_slots - 1));
        while (slots[i].id >= 0)
            i = (i + 1) & (n_slots - 1);
        slots[i] = s;
    }
    PyMem_Free(self->slots);
    self->slots = slots;
    self->n_slots = n_slots;
    return 0;
}

/* the id of a word (bytes p[0:n]), made on first sight; -1 with an error set */
static int32_t word_id(Kernel *self, const char *p, Py_ssize_t n) {
    uint64_t h = hash_bytes(p, n);
    Py_ssize_t mask = self->n_slots - 1;
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask);
    for (;;) {
        Slot *s = &self->slots[i];
        if (s->id < 0)
            break;
        if (s->hash == h && s->len == n && memcmp(self->arena + s->at, p, n) == 0)
            return s->id;
        i = (i + 1) & mask;
    }
    if (self->n_words == self->ids_cap && grow_ids(self) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (ensure((void **)&self->arena, &self->arena_cap, self->arena_len + n, 1) < 0)
        return -1;
    memcpy(self->arena + self->arena_len, p, n);
    int32_t id = (int32_t)self->n_words++;
    self->word_at[id] = self->arena_len;
    self->word_len[id] = (int32_t)n;
    self->filler[id] = -1;
    self->word_str[id] = NULL;
    Slot *s = &self->slots[i];
    s->hash = h;
    s->at = self->arena_len;
    s->len = (int32_t)n;
    s->id = id;
    self->arena_len += n;
    if (2 * self->n_words > self->n_slots && rehash(self, 2 * self->n_slots) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return id;
}

/* the word as a str (borrowed, kept by the table) */
static PyObject *word_str(Kernel *self, int32_t id) {
    if (self->word_str[id] == NULL)
        self->word_str[id] = PyUnicode_FromStringAndSize(self->arena + self->word_at[id], self->word_len[id]);
    return self->word_str[id];
}

static int is_filler(Kernel *self, int32_t id) {
    if (self->filler[id] < 0) {
        PyObject *w = word_str(self, id);
        if (!w)
            return -1;
        int found = PySet_Contains(self->fillers, w);
        if (found < 0)
            return -1;
        self->filler[id] = (signed char)found;
    }
    return self->filler[id];
}

/* ---- a line -------------------------------------------------------------------------------- */

/* the words of a plain line as spans appended at spans[2*k]; -1: not plain */
static Py_ssize_t split_plain(PyObject *text, Py_ssize_t **spans, Py_ssize_t *cap, Py_ssize_t first, int *upper) {
    if (!PyUnicode_IS_ASCII(text) || PyUnicode_GET_LENGTH(text) > INT32_MAX)
        return -1; /* not plain, or too long for the entry's int32 spans: the Python way */
    const char *p = (const char *)PyUnicode_1BYTE_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count = 0, k = 0;
    while (k < n) {
        char c = p[k];
        if (c == ' ') {
            k++;
            continue;
        }
        Py_ssize_t start = k;
        while (k < n && p[k] != ' ') {
            c = p[k];
            if (c >= 'A' && c <= 'Z')
                *upper = 1; /* its key is its lower case */
            else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
                return -1;
            k++;
        }
        if (ensure((void **)spans, cap, 2 * (first + count + 1), sizeof(Py_ssize_t)) < 0)
            return -2;
        (*spans)[2 * (first + count)] = start;
        (*spans)[2 * (first + count) + 1] = k - start;
        count++;
    }
    return count;
}

/* A speech phenomenon (speech._phenomenon) of word at of a side (ids), or s_empty */
static PyObject *phenomenon(Kernel *self, const int32_t *side, Py_ssize_t n, Py_ssize_t at) {
    int32_t w = side[at];
    int f = is_filler(self, w);
    if (f < 0)
        return NULL;
    if (f)
        return s_filler;
    if (at > 0 && side[at - 1] == w)
        return s_repetition;
    if (at + 1 >= n)
        return s_empty;
    int32_t next = side[at + 1];
    if (next == w)
        return s_repetition;
    /* a false start: the start of the next word (plain words have no hyphen or apostrophe) */
    Py_ssize_t lw = self->word_len[w], ln = self->word_len[next];
    if (ln && lw >= 2 && lw < ln && memcmp(self->arena + self->word_at[next], self->arena + self->word_at[w], lw) == 0)
        return s_false_start;
    return s_empty;
}

/* items of an entry: int32 triples; a run (0, i, n) of identical words from ref word i, or (1, 0, 0)
 * a pair (its label entry next in keys) */
typedef struct {
    int32_t *v;
    Py_ssize_t n, cap;
} Ints;

static int ints_add3(Ints *a, int32_t x, int32_t y, int32_t z) {
    if (ensure((void **)&a->v, &a->cap, a->n + 3, sizeof(int32_t)) < 0)
        return -1;
    a->v[a->n++] = x;
    a->v[a->n++] = y;
    a->v[a->n++] = z;
    return 0;
}

/* words (ids) as a tuple of str: a pair's side, or a stretch for the alignment programme */
static PyObject *side_tuple(Kernel *self, const int32_t *ids, Py_ssize_t n) {
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *w = word_str(self, ids[k]);
        if (!w) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, Py_NewRef(w));
    }
    return t;
}

/* A pair of the line, before its label: one word for one, a word on one side, or a swap */
typedef struct {
    int is_run;
    Py_ssize_t i, j, n; /* a run of n identical words from ref word i, hyp word j */
    PyObject *op;       /* borrowed: one of the s_* names */
    int32_t r[2], h[2]; /* a side's word ids (one or two words) */
    int nr, nh;
    Py_ssize_t ref_start, hyp_start;
    PyObject *pair; /* borrowed: a pair the alignment programme made (its sides are its own), or NULL */
    int differ;     /* its two sides differ (a pair of identical words can come from the programme) */
} Proto;

/* a pair: its key (lang, identity) looked up in labels, its entry (or key) appended to keys, and a
 * request (uid, RubricPair, lang) added to todo on first sight */
static int add_pair(Kernel *self, PyObject *keys, PyObject *labels, PyObject *todo, PyObject *uid, const Proto *p,
                    PyObject *note) {
    PyObject *ref = NULL, *hyp = NULL, *identity = NULL, *key = NULL, *op = p->op;
    Py_ssize_t ref_start = p->ref_start, hyp_start = p->hyp_start;
    int ok = -1;
    if (p->pair) {
        if (!(ref = PyObject_GetAttr(p->pair, s_ref)) || !(hyp = PyObject_GetAttr(p->pair, s_hyp)))
            goto done;
    } else if (!(ref = side_tuple(self, p->r, p->nr)) || !(hyp = side_tuple(self, p->h, p->nh))) {
        goto done;
    }
    if (!(identity = PyTuple_Pack(4, ref, hyp, op, note)) || !(key = PyTuple_Pack(2, self->lang, identity)))
        goto done;
    PyObject *entry = PyDict_GetItemWithError(labels, key);
    if (entry) {
        ok = PyList_Append(keys, entry);
        goto done;
    }
    if (PyErr_Occurred())
        goto done;
    int seen = PyDict_Contains(todo, key);
    if (seen < 0)
        goto done;
    if (!seen) {
        PyObject *pair = PyObject_CallFunction(self->pair_class, "OOOnnO", ref, hyp, op, ref_start, hyp_start, note);
        if (!pair)
            goto done;
        PyObject *request = PyTuple_Pack(3, uid, pair, self->lang);
        Py_DECREF(pair);
        if (!request)
            goto done;
        int set = PyDict_SetItem(todo, key, request);
        Py_DECREF(request);
        if (set < 0)
            goto done;
    }
    ok = PyList_Append(keys, key);
done:
    Py_XDECREF(ref);
    Py_XDECREF(hyp);
    Py_XDECREF(identity);
    Py_XDECREF(key);
    return ok;
}


/* a side's word ids as a string of one code point each: rapidfuzz aligns it as it aligns the list
 * of words (its edit script depends only on which tokens are equal) */
static PyObject *as_code_points(const int32_t *ids, Py_ssize_t n) {
    Py_UCS4 top = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_UCS4 cp = ids[k] < 0xD800 ? (Py_UCS4)ids[k] : (Py_UCS4)ids[k] + 0x800; /* no surrogates */
        if (cp > top)
            top = cp;
    }
    PyObject *s = PyUnicode_New(n, top);
    if (!s)
        return NULL;
    int kind = PyUnicode_KIND(s);
    void *data = PyUnicode_DATA(s);
    for (Py_ssize_t k = 0; k < n; k++)
        PyUnicode_WRITE(kind, data, k, ids[k] < 0xD800 ? (Py_UCS4)ids[k] : (Py_UCS4)ids[k] + 0x800);
    return s;
}


static int is_gap(const Proto *p) { return !p->is_run && (p->op == s_insert || p->op == s_delete); }

/* The pairs of a stretch with words on both sides, from the alignment programme (the Python
 * ``region`` given to the kernel: align._region, its limit checked first) as protos appended at
 * *np; -2: the line needs the Python path (a dropped phenomenon for an added one), -1: an error */
static Py_ssize_t region_protos(Kernel *self, const int32_t *rid, const int32_t *rkey, Py_ssize_t nr,
                                const int32_t *hid, const int32_t *hkey, Py_ssize_t nh, Py_ssize_t r0, Py_ssize_t nrs,
                                Py_ssize_t h0, Py_ssize_t nhs, PyObject *held, Py_ssize_t *np, int *inserted,
                                int *deleted) {
    PyObject *rs = side_tuple(self, rid + r0, nrs), *hs = rs ? side_tuple(self, hid + h0, nhs) : NULL;
    PyObject *rk = hs ? side_tuple(self, rkey + r0, nrs) : NULL, *hk = rk ? side_tuple(self, hkey + h0, nhs) : NULL;
    PyObject *found = hk ? PyObject_CallFunction(self->region, "OOOOnn", rs, hs, rk, hk, r0, h0) : NULL;
    Py_XDECREF(rs);
    Py_XDECREF(hs);
    Py_XDECREF(rk);
    Py_XDECREF(hk);
    if (!found)
        return -1;
    int kept = PyList_Append(held, found);
    Py_DECREF(found);
    if (kept < 0)
        return -1;
    if (!PyList_Check(found)) {
        PyErr_SetString(PyExc_TypeError, "the alignment programme did not give a list");
        return -1;
    }
    Py_ssize_t n = PyList_GET_SIZE(found);
    if (ensure((void **)&self->protos, &self->protos_cap, *np + n, sizeof(Proto)) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *pair = PyList_GET_ITEM(found, k);
        PyObject *op = NULL, *ref = NULL, *hyp = NULL, *rs0 = NULL, *hs0 = NULL;
        Proto p = {0, 0, 0, 0, NULL, {0, 0}, {0, 0}, 0, 0, 0, 0, pair, 1};
        int ok = (op = PyObject_GetAttr(pair, s_op)) && (ref = PyObject_GetAttr(pair, s_ref)) &&
                 (hyp = PyObject_GetAttr(pair, s_hyp)) && (rs0 = PyObject_GetAttr(pair, s_ref_start)) &&
                 (hs0 = PyObject_GetAttr(pair, s_hyp_start));
        if (ok && !(PyTuple_Check(ref) && PyTuple_Check(hyp))) {
            PyErr_SetString(PyExc_TypeError, "the alignment programme made a pair whose sides are not tuples");
            ok = 0;
        }
        if (ok) {
            PyObject *names[] = {s_equal, s_substitute, s_insert, s_delete, s_swap, s_merge};
            for (int q = 0; q < 6 && !p.op; q++) {
                int same = PyObject_RichCompareBool(op, names[q], Py_EQ);
                if (same < 0) {
                    ok = 0;
                    break;
                }
                if (same)
                    p.op = names[q];
            }
            p.nr = (int)PyTuple_GET_SIZE(ref);
            p.nh = (int)PyTuple_GET_SIZE(hyp);
            if (ok && (p.ref_start = PyLong_AsSsize_t(rs0)) == -1 && PyErr_Occurred())
                ok = 0;
            if (ok && (p.hyp_start = PyLong_AsSsize_t(hs0)) == -1 && PyErr_Occurred())
                ok = 0;
        }
        if (ok && p.op == NULL) {
            PyErr_SetString(PyExc_ValueError, "the alignment programme made a pair of an unknown kind");
            ok = 0;
        }
        if (ok && (p.ref_start < 0 || p.ref_start + p.nr > nr || p.hyp_start < 0 || p.hyp_start + p.nh > nh)) {
            PyErr_SetString(PyExc_ValueError, "the alignment programme made a pair outside the line");
            ok = 0;
        }
        if (ok) {
            /* one-word sides by their ids (the line's words where the pair sits): swaps and flags read them */
            if (p.nr == 1)
                p.r[0] = rid[p.ref_start];
            if (p.nh == 1)
                p.h[0] = hid[p.hyp_start];
            int differ = PyObject_RichCompareBool(ref, hyp, Py_NE);
            if (differ < 0)
                ok = 0;
            p.differ = differ;
        }
        Py_XDECREF(op);
        Py_XDECREF(ref);
        Py_XDECREF(hyp);
        Py_XDECREF(rs0);
        Py_XDECREF(hs0);
        if (!ok)
            return -1;
        *inserted |= p.op == s_insert;
        *deleted |= p.op == s_delete;
        if (p.op == s_substitute && p.nr == 1 && p.nh == 1) { /* speech.flag may split it in two */
            PyObject *gone = phenomenon(self, rkey, nr, p.ref_start);
            if (!gone)
                return -1;
            if (gone != s_empty) {
                PyObject *new = phenomenon(self, hkey, nh, p.hyp_start);
                if (!new)
                    return -1;
                if (new != s_empty)
                    return -2;
            }
        }
        ((Proto *)self->protos)[(*np)++] = p;
    }
    return n;
}

/* the kernel is usable: initialised, and not inside align (a callback, or another thread, re-entering) */
static int ready(Kernel *self) {
    if (self->editops == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the kernel was not initialised (Kernel(...) with its settings)");
        return 0;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the kernel is already aligning a line: one scorer per thread, no re-entry");
        return 0;
    }
    return 1;
}

/* Kernel.align(uid, ref, hyp, labels, todo) -> (uid, items, keys, edits, wer, ref), or None: the
 * line is not plain, or needs what only the Python path does (nothing is asked of the judge then) */
static PyObject *align_line(Kernel *self, PyObject *const *args);

static PyObject *Kernel_align(Kernel *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyUnicode_Check(args[1]) || !PyUnicode_Check(args[2]) || !PyDict_Check(args[3]) ||
        !PyDict_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "align(uid, ref, hyp, labels, todo)");
        return NULL;
    }
    if (!ready(self))
        return NULL;
    self->busy = 1;
    PyObject *result = align_line(self, args);
    self->busy = 0;
    return result;
}

static PyObject *align_line(Kernel *self, PyObject *const *args) {
    PyObject *uid = args[0], *ref = args[1], *hyp = args[2], *labels = args[3], *todo = args[4];
    int upper = 0;
    Py_ssize_t nr = split_plain(ref, &self->spans, &self->spans_cap, 0, &upper);
    if (nr == -2)
        return NULL;
    if (nr <= 0) /* not plain, or an empty reference: the Python way */
        Py_RETURN_NONE;
    Py_ssize_t nh = split_plain(hyp, &self->spans, &self->spans_cap, nr, &upper);
    if (nh == -2)
        return NULL;
    if (nh < 0 || nr + nh > self->max_words || (double)nr * (double)nh > self->checked_pairs)
        Py_RETURN_NONE;
    /* each word's id, and (with capitals in a line) its key's: the word in lower case */
    if (ensure((void **)&self->ids, &self->ids_scratch_cap, 2 * (nr + nh), sizeof(int32_t)) < 0)
        return NULL;
    /* the table starts again past max_ids words or MAX_ARENA bytes of them (long distinct words
     * would otherwise grow it with the corpus); a line's own words always fit */
    if (self->n_words + 2 * (nr + nh) > self->max_ids ||
        self->arena_len + 2 * (PyUnicode_GET_LENGTH(ref) + PyUnicode_GET_LENGTH(hyp)) > MAX_ARENA)
        kernel_clear_words(self);
    const char *rp = (const char *)PyUnicode_1BYTE_DATA(ref), *hp = (const char *)PyUnicode_1BYTE_DATA(hyp);
    int32_t *rid = self->ids, *hid = self->ids + nr;
    int32_t *rkey = upper ? self->ids + nr + nh : rid, *hkey = upper ? rkey + nr : hid;
    for (Py_ssize_t k = 0; k < nr + nh; k++) {
        const char *word = (k < nr ? rp : hp) + self->spans[2 * k];
        Py_ssize_t len = self->spans[2 * k + 1];
        int32_t id = word_id(self, word, len);
        if (id < 0)
            return NULL;
        self->ids[k] = id;
        if (!upper)
            continue;
        if (ensure((void **)&self->lower, &self->lower_cap, len, 1) < 0)
            return NULL;
        for (Py_ssize_t q = 0; q < len; q++)
            self->lower[q] = (char)(word[q] >= 'A' && word[q] <= 'Z' ? word[q] + ('a' - 'A') : word[q]);
        if ((id = word_id(self, self->lower, len)) < 0)
            return NULL;
        self->ids[nr + nh + k] = id;
    }
    Ints items = {NULL, 0, 0};
    PyObject *keys = NULL, *script = NULL, *opcodes = NULL, *ops = NULL, *result = NULL;
    PyObject *a = NULL, *b = NULL, *blob = NULL, *wer = NULL;
    PyObject *held = NULL; /* the programme's pairs, alive while protos point at them */
    Py_ssize_t edits = 0;
    int same = nr == nh && memcmp(rid, hid, nr * sizeof(int32_t)) == 0;
    if (!(keys = PyList_New(0)) || !(held = PyList_New(0)))
        goto done;
    if (same) {
        if (ints_add3(&items, 0, 0, (int32_t)nr) < 0)
            goto done;
    } else {
        /* the opcodes as (equal, i1, i2, j1): one equal stretch when the keys are equal (words
         * that differ only in case), else rapidfuzz's over the keys */
        Py_ssize_t n_ops = 1;
        if (nr == nh && memcmp(rkey, hkey, nr * sizeof(int32_t)) == 0) {
            if (ensure((void **)&self->ops, &self->ops_cap, 4, sizeof(Py_ssize_t)) < 0)
                goto done;
            self->ops[0] = 1, self->ops[1] = 0, self->ops[2] = nr, self->ops[3] = 0;
        } else {
            if (!(a = as_code_points(rkey, nr)) || !(b = as_code_points(hkey, nh)) ||
                !(script = PyObject_CallFunctionObjArgs(self->editops, a, b, NULL)))
                goto done;
            if ((edits = PyObject_Length(script)) < 0)
                goto done;
            if (!(opcodes = PyObject_CallMethodNoArgs(script, s_as_opcodes)) ||
                !(ops = PyObject_CallMethodNoArgs(opcodes, s_as_list)))
                goto done;
            if (!PyList_Check(ops)) {
                PyErr_SetString(PyExc_TypeError, "rapidfuzz's opcodes are not a list");
                goto done;
            }
            n_ops = PyList_GET_SIZE(ops);
            if (ensure((void **)&self->ops, &self->ops_cap, 4 * n_ops, sizeof(Py_ssize_t)) < 0)
                goto done;
            for (Py_ssize_t k = 0; k < n_ops; k++) {
                PyObject *op = PyList_GET_ITEM(ops, k);
                if (!PyTuple_Check(op) || PyTuple_GET_SIZE(op) != 5) {
                    PyErr_SetString(PyExc_TypeError, "an opcode is not a 5-tuple");
                    goto done;
                }
                int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(op, 0), s_equal, Py_EQ);
                if (eq < 0)
                    goto done;
                Py_ssize_t *o = self->ops + 4 * k;
                o[0] = eq;
                for (int q = 1; q <= 3; q++)
                    if ((o[q] = PyLong_AsSsize_t(PyTuple_GET_ITEM(op, q))) == -1 && PyErr_Occurred())
                        goto done;
            }
        }
        /* first the pairs of the stretches between equal opcodes (stream.ChunkScorer._pairs) and
         * the runs, and whether the line needs the Python path, before anything is asked of the
         * judge */
        Py_ssize_t pend_r = -1, pend_h = -1, np = 0;
        int inserted = 0, deleted = 0;
        for (Py_ssize_t k = 0; k <= n_ops; k++) {
            Py_ssize_t i1 = nr, i2 = nr, j1 = nh;
            if (k < n_ops) {
                const Py_ssize_t *o = self->ops + 4 * k;
                i1 = o[1], i2 = o[2], j1 = o[3];
                if (!o[0]) {
                    if (pend_r < 0) {
                        pend_r = i1;
                        pend_h = j1;
                    }
                    continue;
                }
            }
            if (pend_r >= 0) {
                Py_ssize_t nrs = i1 - pend_r, nhs = j1 - pend_h;
                if (nrs && nhs && !(nrs == 1 && nhs == 1)) { /* the alignment programme's stretch */
                    Py_ssize_t got = region_protos(self, rid, rkey, nr, hid, hkey, nh, pend_r, nrs, pend_h, nhs, held,
                                                   &np, &inserted, &deleted);
                    if (got == -1)
                        goto done;
                    if (got == -2)
                        goto python;
                    pend_r = pend_h = -1;
                    goto stretch_done;
                }
                if (ensure((void **)&self->protos, &self->protos_cap, np + nrs + nhs, sizeof(Proto)) < 0)
                    goto done;
                Proto *pr = self->protos;
                if (nrs == 1 && nhs == 1) {
                    /* a dropped phenomenon for an added one is two pairs (speech.flag) */
                    PyObject *gone = phenomenon(self, rkey, nr, pend_r);
                    if (!gone)
                        goto done;
                    if (gone != s_empty) {
                        PyObject *new = phenomenon(self, hkey, nh, pend_h);
                        if (!new)
                            goto done;
                        if (new != s_empty)
                            goto python;
                    }
                    pr[np++] = (Proto){0, 0, 0, 0, s_substitute, {rid[pend_r], 0}, {hid[pend_h], 0}, 1, 1, pend_r, pend_h, NULL, 1};
                } else {
                    inserted |= nrs == 0;
                    deleted |= nhs == 0;
                    for (Py_ssize_t q = 0; q < nrs; q++)
                        pr[np++] = (Proto){0, 0, 0, 0, s_delete, {rid[pend_r + q], 0}, {0, 0}, 1, 0, pend_r + q, pend_h, NULL, 1};
                    for (Py_ssize_t q = 0; q < nhs; q++)
                        pr[np++] = (Proto){0, 0, 0, 0, s_insert, {0, 0}, {hid[pend_h + q], 0}, 0, 1, pend_r, pend_h + q, NULL, 1};
                }
                pend_r = pend_h = -1;
            }
        stretch_done:
            if (k == n_ops)
                break;
            /* an equal stretch: runs of identical words, and a pair for words that differ in case */
            if (ensure((void **)&self->protos, &self->protos_cap, np + 2 * (i2 - i1) + 1, sizeof(Proto)) < 0)
                goto done;
            Py_ssize_t run = i1;
            for (Py_ssize_t i = i1; upper && i < i2; i++) {
                Py_ssize_t j = j1 + i - i1;
                if (rid[i] == hid[j])
                    continue;
                if (i > run)
                    ((Proto *)self->protos)[np++] = (Proto){1, run, j1 + run - i1, i - run, NULL, {0, 0}, {0, 0},
                                                            0, 0, 0, 0, NULL, 0};
                ((Proto *)self->protos)[np++] = (Proto){0, 0, 0, 0, s_equal, {rid[i], 0}, {hid[j], 0}, 1, 1, i, j,
                                                        NULL, 1};
                run = i + 1;
            }
            if (i2 > run)
                ((Proto *)self->protos)[np++] = (Proto){1, run, j1 + run - i1, i2 - run, NULL, {0, 0}, {0, 0},
                                                        0, 0, 0, 0, NULL, 0};
        }
        /* then, in order: an insertion, a kept word and a deletion of the same word made one swap
         * (align.swaps, asked only when the line has both), each pair flagged (speech.flag) and its
         * entry (or key) put in keys; the items as finish reads them: (0, i, n) a run, (1, 0, 0) a pair */
        Proto *pr = self->protos;
        for (Py_ssize_t k = 0; k < np; k++) {
            Proto *a = &pr[k];
            if (inserted && deleted && k + 2 < np && is_gap(a)) {
                Proto *b = &pr[k + 1], *c = &pr[k + 2];
                /* b: one kept word, a run of one or the programme's pair of identical words */
                int single = b->is_run ? b->n == 1 : b->op == s_equal;
                if (is_gap(c) && c->op != a->op && single) {
                    int32_t kept_r = b->is_run ? rid[b->i] : b->r[0], kept_h = b->is_run ? hid[b->j] : b->h[0];
                    Py_ssize_t b_ref = b->is_run ? b->i : b->ref_start, b_hyp = b->is_run ? b->j : b->hyp_start;
                    Proto swap = {0, 0, 0, 0, s_swap, {0, 0}, {0, 0}, 2, 2, 0, 0, NULL, 1};
                    int found = 0;
                    if (a->op == s_insert && hkey[a->hyp_start] == rkey[c->ref_start]) {
                        swap.r[0] = kept_r, swap.r[1] = c->r[0], swap.h[0] = a->h[0], swap.h[1] = kept_h;
                        swap.ref_start = b_ref, swap.hyp_start = a->hyp_start;
                        found = 1;
                    } else if (a->op == s_delete && rkey[a->ref_start] == hkey[c->hyp_start]) {
                        swap.r[0] = a->r[0], swap.r[1] = kept_r, swap.h[0] = kept_h, swap.h[1] = c->h[0];
                        swap.ref_start = a->ref_start, swap.hyp_start = b_hyp;
                        found = 1;
                    }
                    if (found) {
                        if (ints_add3(&items, 1, 1, 0) < 0 || add_pair(self, keys, labels, todo, uid, &swap, s_empty) < 0)
                            goto done;
                        k += 2;
                        continue;
                    }
                }
            }
            if (a->is_run) {
                if (ints_add3(&items, 0, (int32_t)a->i, (int32_t)a->n) < 0)
                    goto done;
                continue;
            }
            PyObject *note = s_empty;
            if (a->op == s_delete && a->nr == 1 && a->nh == 0)
                note = phenomenon(self, rkey, nr, a->ref_start);
            else if (a->op == s_insert && a->nh == 1 && a->nr == 0)
                note = phenomenon(self, hkey, nh, a->hyp_start);
            if (!note || ints_add3(&items, 1, a->differ, 0) < 0 || add_pair(self, keys, labels, todo, uid, a, note) < 0)
                goto done;
        }
    }
    /* the entry: the items and the reference's word spans, as int32s, in one bytes object */
    if (!(blob = PyBytes_FromStringAndSize(NULL, (items.n + 1 + 2 * nr) * (Py_ssize_t)sizeof(int32_t))))
        goto done;
    {
        int32_t *v = (int32_t *)PyBytes_AS_STRING(blob);
        v[0] = (int32_t)items.n;
        memcpy(v + 1, items.v, items.n * sizeof(int32_t));
        for (Py_ssize_t k = 0; k < nr; k++) {
            v[1 + items.n + 2 * k] = (int32_t)self->spans[2 * k];
            v[1 + items.n + 2 * k + 1] = (int32_t)self->spans[2 * k + 1];
        }
    }
    /* the WER beside LASER: the alignment's edits over the reference's words (one-to-one tokens) */
    wer = self->wanted ? PyFloat_FromDouble(same ? 0.0 : (double)edits / (double)nr) : Py_NewRef(Py_None);
    if (wer)
        result = Py_BuildValue("(OOOnOO)", uid, blob, keys, edits, wer, ref);
    goto done;
python:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(items.v);
    Py_XDECREF(keys);
    Py_XDECREF(script);
    Py_XDECREF(opcodes);
    Py_XDECREF(ops);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(blob);
    Py_XDECREF(wer);
    Py_XDECREF(held);
    return result;
}

/* ---- a record ------------------------------------------------------------------------------ */

typedef struct {
    char *p;
    Py_ssize_t n, cap;
} Buf;

static int buf_add(Buf *b, const char *p, Py_ssize_t n) {
    if (ensure((void **)&b->p, &b->cap, b->n + n, 1) < 0)
        return -1;
    memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static int buf_bytes(Buf *b, PyObject *bytes) {
    return buf_add(b, PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes));
}

static int buf_str(Buf *b, PyObject *str) {
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(str, &n);
    return p ? buf_add(b, p, n) : -1;
}

/* floats as float.__repr__ (and so json.dumps) writes them, cached by their bits: a corpus has few
 * distinct WERs and penalties, and the shortest repr costs ~2,400 instructions to make */
typedef struct {
    uint64_t bits;
    char len; /* 0: empty */
    char text[31];
} FloatText;

static FloatText float_texts[1024];

static int buf_float(Buf *b, double x) {
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    FloatText *slot = &float_texts[(bits ^ (bits >> 29) ^ (bits >> 47)) & 1023];
    if (slot->len && slot->bits == bits)
        return buf_add(b, slot->text, slot->len);
    char *s = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
    if (!s)
        return -1;
    size_t n = strlen(s);
    int ok = buf_add(b, s, (Py_ssize_t)n);
    if (n < sizeof slot->text) {
        memcpy(slot->text, s, n);
        slot->len = (char)n;
        slot->bits = bits;
    }
    PyMem_Free(s);
    return ok;
}

static int buf_int(Buf *b, Py_ssize_t x) {
    char s[32];
    int n = snprintf(s, sizeof s, "%zd", x);
    return buf_add(b, s, n);
}

/* an entry as align makes it: (uid, blob, keys, edits, wer, ref), its blob's items and spans
 * inside the blob and the reference, so that finish never reads beyond either */
static int entry_ok(PyObject *blob, PyObject *keys, PyObject *wer, PyObject *ref, PyObject *scores) {
    if (!PyBytes_Check(blob) || !PyList_Check(keys) || !(wer == Py_None || PyFloat_Check(wer)) ||
        !PyUnicode_Check(ref) || !PyUnicode_IS_ASCII(ref) || !(scores == Py_None || PyList_Check(scores)))
        return 0;
    Py_ssize_t size = PyBytes_GET_SIZE(blob);
    if (size < (Py_ssize_t)sizeof(int32_t) || size % sizeof(int32_t))
        return 0;
    const int32_t *v = (const int32_t *)PyBytes_AS_STRING(blob);
    Py_ssize_t total = size / (Py_ssize_t)sizeof(int32_t), n_items = v[0];
    if (n_items < 0 || n_items % 3 || 1 + n_items > total || (total - 1 - n_items) % 2)
        return 0;
    Py_ssize_t nr = (total - 1 - n_items) / 2, length = PyUnicode_GET_LENGTH(ref);
    const int32_t *it = v + 1, *spans = v + 1 + n_items;
    if (nr < 1)
        return 0;
    for (Py_ssize_t w = 0; w < nr; w++)
        if (spans[2 * w] < 0 || spans[2 * w + 1] < 0 || (Py_ssize_t)spans[2 * w] + spans[2 * w + 1] > length)
            return 0;
    for (Py_ssize_t k = 0; k < n_items; k += 3)
        if (it[k] == 0 ? it[k + 1] < 0 || it[k + 2] < 0 || (Py_ssize_t)it[k + 1] + it[k + 2] > nr : it[k] != 1)
            return 0;
    return 1;
}

/* Kernel.finish(entry, labels, events, figures, scores) -> the record line (bytes) or None */
static PyObject *Kernel_finish(Kernel *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 6 || !PyDict_Check(args[1]) ||
        !PyList_Check(args[2]) || !PyList_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError, "finish(entry, labels, events, figures, scores)");
        return NULL;
    }
    PyObject *entry = args[0], *labels = args[1], *events = args[2], *figures = args[3], *scores = args[4];
    PyObject *uid = PyTuple_GET_ITEM(entry, 0), *blob = PyTuple_GET_ITEM(entry, 1), *keys = PyTuple_GET_ITEM(entry, 2);
    PyObject *edits = PyTuple_GET_ITEM(entry, 3), *wer = PyTuple_GET_ITEM(entry, 4), *ref = PyTuple_GET_ITEM(entry, 5);
    if (self->editops == NULL) { /* finish uses no scratch: only the settings must be there */
        PyErr_SetString(PyExc_RuntimeError, "the kernel was not initialised (Kernel(...) with its settings)");
        return NULL;
    }
    if (!entry_ok(blob, keys, wer, ref, scores)) {
        PyErr_SetString(PyExc_ValueError, "finish() takes an entry that align() made");
        return NULL;
    }
    const int32_t *v = (const int32_t *)PyBytes_AS_STRING(blob);
    Py_ssize_t n_items = v[0];
    const int32_t *it = v + 1, *spans = v + 1 + n_items;
    Py_ssize_t nr = (PyBytes_GET_SIZE(blob) / (Py_ssize_t)sizeof(int32_t) - 1 - n_items) / 2;
    const char *rp = (const char *)PyUnicode_1BYTE_DATA(ref);
    double penalty = 0.0;
    Py_ssize_t n_identical = 0, n_events = 0, n_format = 0, next_key = 0;
    Buf pairs = {NULL, 0, 0}, line = {NULL, 0, 0};
    PyObject *result = NULL, *laser_obj = NULL, *found = NULL, *uid_json = NULL, *figure = NULL, *penalty_obj = NULL;
    PyObject *before = PyTuple_GET_ITEM(self->identical, 0), *between = PyTuple_GET_ITEM(self->identical, 1),
             *after = PyTuple_GET_ITEM(self->identical, 2);
    int first = 1;
    for (Py_ssize_t k = 0; k < n_items; k += 3) {
        if (it[k] == 0) { /* a run of identical words */
            Py_ssize_t i = it[k + 1], n = it[k + 2];
            n_identical += n;
            if (!self->records)
                continue;
            for (Py_ssize_t w = i; w < i + n; w++) {
                const char *word = rp + spans[2 * w];
                Py_ssize_t len = spans[2 * w + 1];
                if ((!first && buf_add(&pairs, ", ", 2) < 0) || buf_bytes(&pairs, before) < 0 ||
                    buf_add(&pairs, word, len) < 0 || buf_bytes(&pairs, between) < 0 ||
                    buf_add(&pairs, word, len) < 0 || buf_bytes(&pairs, after) < 0)
                    goto done;
                first = 0;
            }
            continue;
        }
        if (next_key >= PyList_GET_SIZE(keys)) {
            PyErr_SetString(PyExc_ValueError, "fewer keys than pairs");
            goto done;
        }
        PyObject *e = PyList_GET_ITEM(keys, next_key++);
        if (!PyTuple_Check(e))
            goto bad;
        if (PyTuple_GET_SIZE(e) != 4) { /* the key of a pair labelled after the line was aligned */
            e = PyDict_GetItemWithError(labels, e);
            if (!e) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_KeyError, "a pair's label is missing");
                goto done;
            }
            if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 4)
                goto bad;
        }
        double pen = PyFloat_AsDouble(PyTuple_GET_ITEM(e, 1));
        if (pen == -1.0 && PyErr_Occurred())
            goto done;
        penalty += pen;
        n_events++;
        PyObject *event = PyTuple_GET_ITEM(e, 3);
        if (PyList_Append(events, event) < 0)
            goto done;
        if (!PyTuple_Check(event) || PyTuple_GET_SIZE(event) < 1)
            goto bad;
        /* the same words but for case or punctuation: a "match" whose sides differ */
        int match = PyObject_RichCompareBool(PyTuple_GET_ITEM(event, 0), s_match, Py_EQ);
        if (match < 0)
            goto done;
        n_format += match && it[k + 1];
        if (self->records) {
            PyObject *js = PyTuple_GET_ITEM(e, 2);
            if (!PyBytes_Check(js))
                goto bad;
            if ((!first && buf_add(&pairs, ", ", 2) < 0) || buf_bytes(&pairs, js) < 0)
                goto done;
            first = 0;
        }
    }
    {
        double laser = 1.0 - penalty / (double)nr; /* scoring.laser_score: nr > 0 here */
        if (!(laser > 0.0))
            laser = 0.0;
        if (!(laser_obj = PyFloat_FromDouble(laser)) || !(found = PyObject_GetItem(self->laser_json, laser_obj)))
            goto done;
        if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 2)
            goto bad;
        PyObject *calibrated = PyTuple_GET_ITEM(found, 0), *laser_text = PyTuple_GET_ITEM(found, 1);
        if (!(penalty_obj = PyFloat_FromDouble(penalty)))
            goto done;
        figure = Py_BuildValue("(OOnOnnnOO)", penalty_obj, laser_obj, nr, edits, n_identical, n_events, n_format,
                               Py_None, calibrated);
        if (!figure || PyList_Append(figures, figure) < 0)
            goto done;
        if (scores != Py_None) {
            PyObject *score = PyTuple_Pack(5, uid, laser_obj, wer, calibrated, Py_None);
            int ok = score ? PyList_Append(scores, score) : -1;
            Py_XDECREF(score);
            if (ok < 0)
                goto done;
        }
        if (!self->records) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        if (!(uid_json = PyObject_CallOneArg(self->string, uid)))
            goto done;
        if (!PyUnicode_Check(uid_json))
            goto bad;
        if (buf_add(&line, "{\"id\": ", 7) < 0 || buf_str(&line, uid_json) < 0 || buf_bytes(&line, self->head_mid) < 0 ||
            buf_str(&line, laser_text) < 0 || buf_add(&line, ", \"format_errors\": ", 19) < 0 ||
            buf_int(&line, n_format) < 0 || buf_add(&line, ", \"wer\": ", 9) < 0)
            goto done;
        if (wer == Py_None) {
            if (buf_add(&line, "null", 4) < 0)
                goto done;
        } else if (buf_float(&line, PyFloat_AS_DOUBLE(wer)) < 0) {
            goto done;
        }
        if (buf_add(&line, ", \"penalty\": ", 13) < 0 || buf_float(&line, penalty) < 0 ||
            buf_add(&line, ", \"ref_words\": ", 15) < 0 || buf_int(&line, nr) < 0 ||
            buf_add(&line, ", \"pairs\": [", 12) < 0 || buf_add(&line, pairs.p, pairs.n) < 0 ||
            buf_add(&line, "]}\n", 3) < 0)
            goto done;
        result = PyBytes_FromStringAndSize(line.p, line.n);
    }
    goto done;
bad:
    PyErr_SetString(PyExc_TypeError, "a label entry is not (label, penalty, json, event)");
done:
    PyMem_Free(pairs.p);
    PyMem_Free(line.p);
    Py_XDECREF(laser_obj);
    Py_XDECREF(found);
    Py_XDECREF(uid_json);
    Py_XDECREF(figure);
    Py_XDECREF(penalty_obj);
    return result;
}

/* ---- the type ------------------------------------------------------------------------------ */

static PyObject *Kernel_clear(Kernel *self, PyObject *unused) {
    if (!ready(self))
        return NULL;
    kernel_clear_words(self);
    Py_RETURN_NONE;
}

static PyObject *Kernel_words(Kernel *self, PyObject *unused) { return PyLong_FromSsize_t(self->n_words); }

static int Kernel_init(Kernel *self, PyObject *args, PyObject *kw) {
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the kernel is aligning a line: it cannot be initialised again now");
        return -1;
    }
    static char *names[] = {"editops",    "pair_class", "fillers", "lang",          "string",    "identical",
                            "head_mid",   "laser_json", "region",  "wanted",        "records",   "checked_pairs",
                            "max_words",  "max_ids",    NULL};
    PyObject *editops, *pair_class, *fillers, *lang, *string, *identical, *head_mid, *laser_json, *region;
    int wanted, records;
    double checked_pairs;
    Py_ssize_t max_words, max_ids;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO!UOO!SOOppdnn", names, &editops, &pair_class, &PyFrozenSet_Type,
                                     &fillers, &lang, &string, &PyTuple_Type, &identical, &head_mid, &laser_json,
                                     &region, &wanted, &records, &checked_pairs, &max_words, &max_ids))
        return -1;
    if (PyTuple_GET_SIZE(identical) != 3 || !PyBytes_Check(PyTuple_GET_ITEM(identical, 0)) ||
        !PyBytes_Check(PyTuple_GET_ITEM(identical, 1)) || !PyBytes_Check(PyTuple_GET_ITEM(identical, 2))) {
        PyErr_SetString(PyExc_TypeError, "identical: (before, between, after) bytes");
        return -1;
    }
    if (max_ids > 0x10FFFF - 0x800 - 1) {
        PyErr_SetString(PyExc_ValueError, "max_ids: at most one code point per word");
        return -1;
    }
    Py_XSETREF(self->editops, Py_NewRef(editops));
    Py_XSETREF(self->pair_class, Py_NewRef(pair_class));
    Py_XSETREF(self->fillers, Py_NewRef(fillers));
    Py_XSETREF(self->lang, Py_NewRef(lang));
    Py_XSETREF(self->string, Py_NewRef(string));
    Py_XSETREF(self->identical, Py_NewRef(identical));
    Py_XSETREF(self->head_mid, Py_NewRef(head_mid));
    Py_XSETREF(self->laser_json, Py_NewRef(laser_json));
    Py_XSETREF(self->region, Py_NewRef(region));
    self->wanted = wanted;
    self->records = records;
    self->checked_pairs = checked_pairs;
    self->max_words = max_words;
    self->max_ids = max_ids;
    kernel_clear_words(self);
    if (self->slots == NULL && rehash(self, 1 << 12) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void Kernel_dealloc(Kernel *self) {
    kernel_clear_words(self);
    PyMem_Free(self->slots);
    PyMem_Free(self->arena);
    PyMem_Free(self->word_at);
    PyMem_Free(self->word_len);
    PyMem_Free(self->filler);
    PyMem_Free(self->word_str);
    PyMem_Free(self->spans);
    PyMem_Free(self->ids);
    PyMem_Free(self->protos);
    PyMem_Free(self->lower);
    PyMem_Free(self->ops);
    Py_XDECREF(self->editops);
    Py_XDECREF(self->pair_class);
    Py_XDECREF(self->fillers);
    Py_XDECREF(self->lang);
    Py_XDECREF(self->string);
    Py_XDECREF(self->identical);
    Py_XDECREF(self->head_mid);
    Py_XDECREF(self->laser_json);
    Py_XDECREF(self->region);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Kernel_methods[] = {
    {"align", (PyCFunction)(void (*)(void))Kernel_align, METH_FASTCALL,
     "align(uid, ref, hyp, labels, todo) -> entry, or None for the Python way"},
    {"finish", (PyCFunction)(void (*)(void))Kernel_finish, METH_FASTCALL,
     "finish(entry, labels, events, figures, scores) -> the record line (bytes), or None without records"},
    {"clear", (PyCFunction)Kernel_clear, METH_NOARGS, "forget the words (the table starts again)"},
    {"words", (PyCFunction)Kernel_words, METH_NOARGS, "how many words the table holds"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "voxjudge.asr.laser._plain.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "LASER's streamed path for plain lines (see the module's source).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Kernel_init,
    .tp_dealloc = (destructor)Kernel_dealloc,
    .tp_methods = Kernel_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plain", "LASER's streamed path for plain lines, compiled.",
                                    -1, NULL};

PyMODINIT_FUNC PyInit__plain(void) {
#define INTERN(var, text)                                                                                              \
    if (!(var = PyUnicode_InternFromString(text)))                                                                     \
        return NULL;
    INTERN(s_substitute, "substitute");
    INTERN(s_insert, "insert");
    INTERN(s_delete, "delete");
    INTERN(s_swap, "swap");
    INTERN(s_merge, "merge");
    INTERN(s_ref, "ref");
    INTERN(s_hyp, "hyp");
    INTERN(s_op, "op");
    INTERN(s_ref_start, "ref_start");
    INTERN(s_hyp_start, "hyp_start");
    INTERN(s_filler, "filler");
    INTERN(s_repetition, "repetition");
    INTERN(s_false_start, "false_start");
    INTERN(s_empty, "");
    INTERN(s_match, "match");
    INTERN(s_as_opcodes, "as_opcodes");
    INTERN(s_as_list, "as_list");
    INTERN(s_equal, "equal");
    if (PyType_Ready(&KernelType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
#ifndef SOURCE_SHA256
#define SOURCE_SHA256 ""
#endif
    if (PyModule_AddObjectRef(m, "Kernel", (PyObject *)&KernelType) < 0 ||
        PyModule_AddStringConstant(m, "source_sha256", SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
