/* The reader's compiled path: plain data, and on demand the position map, straight from
 * libyaml's parser, with no Python object per parser event.
 *
 * It takes exactly the documents the event path of ``generator.yamlio.read`` builds without
 * help: one document, no directives, tags, anchors, aliases, complex, merge or duplicate keys,
 * nesting below the depth bound, text libyaml parses and no character libyaml reads otherwise
 * than ruamel's Python scanner (``read_apart``). For anything else it raises ``Slow`` and
 * builds nothing, and the event path reads the text again, so every error, fallback and
 * message stays the event path's. Plain scalars are resolved by the Python callables of the
 * reader's ``Resolution`` (go-yaml v2 for manifests, YAML 1.2 for inputs), only for those
 * whose first character the resolution hints at, as the event path does; an exception they
 * raise (``Fallback``) passes through unchanged.
 *
 * The resolution's callables are functions of the text alone: a reader keeps what they gave
 * for each text (MEMO_SIZE texts each for keys and values; manifests repeat the same few
 * keys and values, so most plain scalars that need resolving cost a lookup, not a call).
 *
 * Recursion is bounded: by the reader's depth bound, and by MAX_NESTING when it has none.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <yaml.h>

#define MAX_NESTING 1000
#define MEMO_SIZE 4096

static PyObject *Slow;

typedef struct {
    PyObject_HEAD
    PyObject *resolve;   /* plain scalar text -> value */
    PyObject *plain_key; /* plain key text -> str key */
    PyObject *values;    /* text -> resolve(text), up to MEMO_SIZE texts */
    PyObject *keys;      /* text -> plain_key(text), likewise */
    long max_depth;      /* -1: no bound of the caller's */
    char hinted[128];    /* ASCII first characters that are resolved */
} Reader;

typedef struct {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_event;
    Reader *reader;
    PyObject *node; /* locate's node factory, NULL for load */
    Py_ssize_t unsettled; /* find: the queries whose answer may still change */
    int early;            /* find: stop reading once none may (the text is one load read whole) */
} Run;

static int slow(void) {
    PyErr_SetNone(Slow);
    return -1;
}

/* The next event into run->event; -1 with Slow set when libyaml stops. */
static int next_event(Run *run) {
    if (run->has_event) {
        yaml_event_delete(&run->event);
        run->has_event = 0;
    }
    if (!yaml_parser_parse(&run->parser, &run->event))
        return slow();
    run->has_event = 1;
    return 0;
}

static int is_hinted(Reader *reader, const yaml_event_t *event) {
    size_t length = event->data.scalar.length;
    unsigned char first = length ? event->data.scalar.value[0] : 0;
    return event->data.scalar.plain_implicit && (length == 0 || (first < 128 && reader->hinted[first]));
}

static PyObject *scalar_text(const yaml_event_t *event) {
    PyObject *text = PyUnicode_DecodeUTF8((const char *)event->data.scalar.value,
                                          (Py_ssize_t)event->data.scalar.length, "strict");
    if (text == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear();
        slow();
    }
    return text;
}

/* A scalar's text, passed through ``resolve`` when plain and hinted (what it gave for the same
 * text before, kept in ``memo``); Slow for tags and anchors. */
static PyObject *resolved(Run *run, PyObject *resolve, PyObject *memo) {
    const yaml_event_t *event = &run->event;
    if (event->data.scalar.tag != NULL || event->data.scalar.anchor != NULL) {
        slow();
        return NULL;
    }
    PyObject *text = scalar_text(event);
    if (text == NULL || !is_hinted(run->reader, event))
        return text;
    PyObject *value = PyDict_GetItemWithError(memo, text);
    if (value != NULL || PyErr_Occurred()) {
        Py_DECREF(text);
        return Py_XNewRef(value);
    }
    value = PyObject_CallOneArg(resolve, text);
    if (value != NULL && PyDict_GET_SIZE(memo) < MEMO_SIZE && PyDict_SetItem(memo, text, value) < 0)
        Py_CLEAR(value);
    Py_DECREF(text);
    return value;
}

static PyObject *scalar_value(Run *run) {
    return resolved(run, run->reader->resolve, run->reader->values);
}

/* A mapping key as the data holds it; Slow for a collection as a key (the event path's Fallback). */
static PyObject *mapping_key(Run *run) {
    if (run->event.type != YAML_SCALAR_EVENT) {
        slow();
        return NULL;
    }
    return resolved(run, run->reader->plain_key, run->reader->keys);
}

static int collection_start(Run *run, long depth, yaml_char_t *tag, yaml_char_t *anchor) {
    if (depth == run->reader->max_depth || depth >= MAX_NESTING || tag != NULL || anchor != NULL)
        return slow();
    return 0;
}

/* -1 with Slow set for a key the mapping holds already or a merge key (the event path's
 * Fallback: ruamel reports the one, builds the other), -1 on error, else 0. */
static int refused_key(PyObject *mapping, PyObject *key) {
    int known = PyDict_Contains(mapping, key);
    if (known < 0)
        return -1;
    if (known || (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, "<<") == 0))
        return slow();
    return 0;
}

static PyObject *build(Run *run, long depth);

static PyObject *build_mapping(Run *run, long depth) {
    if (collection_start(run, depth, run->event.data.mapping_start.tag, run->event.data.mapping_start.anchor) < 0)
        return NULL;
    PyObject *out = PyDict_New();
    if (out == NULL)
        return NULL;
    for (;;) {
        if (next_event(run) < 0)
            goto fail;
        if (run->event.type == YAML_MAPPING_END_EVENT)
            return out;
        PyObject *key = mapping_key(run);
        if (key == NULL)
            goto fail;
        if (refused_key(out, key) < 0) {
            Py_DECREF(key);
            goto fail;
        }
        PyObject *value = next_event(run) < 0 ? NULL : build(run, depth + 1);
        if (value == NULL || PyDict_SetItem(out, key, value) < 0) {
            Py_DECREF(key);
            Py_XDECREF(value);
            goto fail;
        }
        Py_DECREF(key);
        Py_DECREF(value);
    }
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *build_sequence(Run *run, long depth) {
    if (collection_start(run, depth, run->event.data.sequence_start.tag, run->event.data.sequence_start.anchor) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (;;) {
        if (next_event(run) < 0)
            goto fail;
        if (run->event.type == YAML_SEQUENCE_END_EVENT)
            return out;
        PyObject *item = build(run, depth + 1);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
fail:
    Py_DECREF(out);
    return NULL;
}

/* The data of the node whose first event is run->event; ``depth`` collections enclose it. */
static PyObject *build(Run *run, long depth) {
    switch (run->event.type) {
    case YAML_SCALAR_EVENT:
        return scalar_value(run);
    case YAML_MAPPING_START_EVENT:
        return build_mapping(run, depth);
    case YAML_SEQUENCE_START_EVENT:
        return build_sequence(run, depth);
    default: /* aliases */
        slow();
        return NULL;
    }
}

/* --- positions: the event path's ``locate`` map, nodes made by the caller's factory --- */

static const char *style_of(yaml_scalar_style_t style) {
    switch (style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
        return "'";
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        return "\"";
    case YAML_LITERAL_SCALAR_STYLE:
        return "|";
    case YAML_FOLDED_SCALAR_STYLE:
        return ">";
    default:
        return "";
    }
}

/* The node of run->event: factory(line, column, text, style); text and style None for collections. */
static PyObject *node_of(Run *run) {
    const yaml_event_t *event = &run->event;
    unsigned long line = (unsigned long)event->start_mark.line, column = (unsigned long)event->start_mark.column;
    if (event->type != YAML_SCALAR_EVENT)
        return PyObject_CallFunction(run->node, "kkOO", line, column, Py_None, Py_None);
    PyObject *text = scalar_text(event);
    if (text == NULL)
        return NULL;
    PyObject *node = PyObject_CallFunction(run->node, "kkOs", line, column, text, style_of(event->data.scalar.style));
    Py_DECREF(text);
    return node;
}

static PyObject *where(Run *run, long depth);

/* The (node, where) pair of run->event's node. */
static PyObject *located(Run *run, long depth) {
    PyObject *node = node_of(run);
    if (node == NULL)
        return NULL;
    PyObject *inner = where(run, depth);
    if (inner == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    return Py_BuildValue("(NN)", node, inner);
}

/* ``where`` of the node whose first event is run->event: {key: (key_node, value_node, where)},
 * [(item_node, where)], or None for a scalar. */
static PyObject *where(Run *run, long depth) {
    if (run->event.type == YAML_SCALAR_EVENT) {
        if (run->event.data.scalar.tag != NULL || run->event.data.scalar.anchor != NULL) {
            slow();
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (run->event.type == YAML_SEQUENCE_START_EVENT) {
        if (collection_start(run, depth, run->event.data.sequence_start.tag, run->event.data.sequence_start.anchor) < 0)
            return NULL;
        PyObject *items = PyList_New(0);
        if (items == NULL)
            return NULL;
        for (;;) {
            if (next_event(run) < 0)
                break;
            if (run->event.type == YAML_SEQUENCE_END_EVENT)
                return items;
            PyObject *pair = located(run, depth + 1);
            if (pair == NULL || PyList_Append(items, pair) < 0) {
                Py_XDECREF(pair);
                break;
            }
            Py_DECREF(pair);
        }
        Py_DECREF(items);
        return NULL;
    }
    if (run->event.type != YAML_MAPPING_START_EVENT ||
        collection_start(run, depth, run->event.data.mapping_start.tag, run->event.data.mapping_start.anchor) < 0) {
        if (!PyErr_Occurred())
            slow();
        return NULL;
    }
    PyObject *keys = PyDict_New();
    if (keys == NULL)
        return NULL;
    for (;;) {
        if (next_event(run) < 0)
            break;
        if (run->event.type == YAML_MAPPING_END_EVENT)
            return keys;
        PyObject *key = mapping_key(run);
        if (key == NULL)
            break;
        if (refused_key(keys, key) < 0) {
            Py_DECREF(key);
            break;
        }
        PyObject *key_node = node_of(run);
        PyObject *pair = key_node == NULL || next_event(run) < 0 ? NULL : located(run, depth + 1);
        PyObject *entry = pair == NULL ? NULL : PyTuple_Pack(3, key_node, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
        int failed = entry == NULL || PyDict_SetItem(keys, key, entry) < 0;
        Py_DECREF(key);
        Py_XDECREF(key_node);
        Py_XDECREF(pair);
        Py_XDECREF(entry);
        if (failed)
            break;
    }
    Py_DECREF(keys);
    return NULL;
}

/* --- find: one path's node and mark, without the map --- */

/* One path ``find`` looks for, and what it found: the mark of the deepest part of the path
 * that exists (line -1: none), and the node at the whole path (NULL: it does not exist);
 * ``matched``: the index of that part (-1: none). */
typedef struct {
    PyObject **parts;
    Py_ssize_t n;
    int at_value;
    long line, column;
    PyObject *node;
    Py_ssize_t matched;
} Query;

/* Past the node whose first event is run->event (``depth`` collections enclose it), checking
 * what ``where`` checks of the nodes it builds (tags, anchors, aliases, the depth bound). */
static int skip(Run *run, long depth) {
    long open = 0;
    for (;;) {
        const yaml_event_t *event = &run->event;
        switch (event->type) {
        case YAML_SCALAR_EVENT:
            if (event->data.scalar.tag != NULL || event->data.scalar.anchor != NULL)
                return slow();
            break;
        case YAML_MAPPING_START_EVENT:
            if (collection_start(run, depth + open, event->data.mapping_start.tag, event->data.mapping_start.anchor) < 0)
                return -1;
            open++;
            break;
        case YAML_SEQUENCE_START_EVENT:
            if (collection_start(run, depth + open, event->data.sequence_start.tag, event->data.sequence_start.anchor) < 0)
                return -1;
            open++;
            break;
        case YAML_MAPPING_END_EVENT:
        case YAML_SEQUENCE_END_EVENT:
            open--;
            break;
        default: /* aliases */
            return slow();
        }
        if (open == 0)
            return 0;
        if (next_event(run) < 0)
            return -1;
    }
}

/* Record in ``query`` the mark of its part ``i`` (found at ``mark``), and the node when that
 * part is its last. */
static int reached(Run *run, Query *query, Py_ssize_t i, yaml_mark_t mark) {
    query->line = (long)mark.line;
    query->column = (long)mark.column;
    query->matched = i;
    Py_CLEAR(query->node);
    if (i == query->n - 1) {
        run->unsettled--; /* the whole path is there: a text load read has no second one */
        if ((query->node = node_of(run)) == NULL)
            return -1;
    }
    return 0;
}

/* 1 when the reading may stop: every answer is settled and the text is one load read whole
 * (what follows can neither change an answer nor be refused); else 0. */
static int settled(Run *run) {
    return run->early && run->unsettled == 0;
}

static int walk(Run *run, long depth, Query **queries, Py_ssize_t count, Py_ssize_t i);

/* The queries among ``queries`` whose part ``i`` is the item ``index`` (``key`` NULL) or equals
 * ``key``, into ``into``; their number, or -1 on error. */
static Py_ssize_t matching(Query **queries, Py_ssize_t count, Py_ssize_t i, PyObject *key, Py_ssize_t index,
                           Query **into) {
    Py_ssize_t found = 0;
    for (Py_ssize_t q = 0; q < count; q++) {
        PyObject *part = queries[q]->parts[i];
        int same;
        if (key != NULL) {
            same = PyObject_RichCompareBool(key, part, Py_EQ);
            if (same < 0)
                return -1;
        } else {
            if (!PyLong_Check(part))
                continue;
            Py_ssize_t wanted = PyLong_AsSsize_t(part);
            if (wanted == -1 && PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                    return -1;
                PyErr_Clear(); /* an index past any sequence */
                continue;
            }
            same = wanted == index;
        }
        if (same)
            into[found++] = queries[q];
    }
    return found;
}

/* Past the node whose first event is run->event, recording in each query what its
 * ``parts[i:]`` reach inside it: the start mark of each part that exists (a key's, or with
 * ``at_value`` the last key's value's; an item's), and the node of the last. The document is
 * read once for all the queries. 1 when the reading may stop (``settled``), -1 on error. */
static int walk(Run *run, long depth, Query **queries, Py_ssize_t count, Py_ssize_t i) {
    const yaml_event_t *event = &run->event;
    Py_ssize_t open = 0;
    for (Py_ssize_t q = 0; q < count; q++)
        if (queries[q]->n > i)
            queries[open++] = queries[q]; /* the queries that go deeper than this node */
    count = open;
    if (count > 0 && (event->type == YAML_SCALAR_EVENT || event->type == YAML_ALIAS_EVENT)) {
        run->unsettled -= count; /* no part of theirs is inside a scalar */
        if (settled(run))
            return 1;
    }
    if (count == 0 || event->type == YAML_SCALAR_EVENT || event->type == YAML_ALIAS_EVENT)
        return skip(run, depth);
    int sequence = event->type == YAML_SEQUENCE_START_EVENT;
    if (!sequence && event->type != YAML_MAPPING_START_EVENT)
        return slow();
    yaml_char_t *tag = sequence ? event->data.sequence_start.tag : event->data.mapping_start.tag;
    yaml_char_t *anchor = sequence ? event->data.sequence_start.anchor : event->data.mapping_start.anchor;
    if (collection_start(run, depth, tag, anchor) < 0)
        return -1;
    Query **inner = PyMem_New(Query *, count);
    if (inner == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    int status = -1;
    for (Py_ssize_t index = 0;; index++) {
        if (next_event(run) < 0)
            goto done;
        if (run->event.type == (sequence ? YAML_SEQUENCE_END_EVENT : YAML_MAPPING_END_EVENT))
            break;
        Py_ssize_t found;
        yaml_mark_t mark = run->event.start_mark;
        if (sequence) {
            found = matching(queries, count, i, NULL, index, inner);
        } else {
            PyObject *key = mapping_key(run);
            if (key == NULL)
                goto done;
            found = matching(queries, count, i, key, 0, inner);
            Py_DECREF(key);
            if (found < 0 || next_event(run) < 0)
                goto done;
        }
        if (found < 0)
            goto done;
        if (found == 0) {
            if (skip(run, depth + 1) < 0)
                goto done;
            continue;
        }
        for (Py_ssize_t q = 0; q < found; q++) {
            Query *query = inner[q];
            int value_mark = !sequence && i == query->n - 1 && query->at_value;
            if (reached(run, query, i, value_mark ? run->event.start_mark : mark) < 0)
                goto done;
        }
        if (settled(run)) {
            status = 1;
            goto done;
        }
        int inside = walk(run, depth + 1, inner, found, i + 1);
        if (inside != 0) {
            status = inside;
            goto done;
        }
    }
    for (Py_ssize_t q = 0; q < count; q++)
        if (queries[q]->matched < i)
            run->unsettled--; /* its part i is not in this collection */
    status = settled(run);
done:
    PyMem_Free(inner);
    return status;
}

/* --- one read of one text --- */

/* Whether the UTF-8 text holds a character libyaml and ruamel's Python scanner read apart: a
 * byte order mark past the start (libyaml drops it at the start of any line), and the line
 * breaks of YAML 1.1 beyond CR and LF (NEL, LS, PS). The event path and its fallback decide. */
static int read_apart(const unsigned char *bytes, Py_ssize_t size) {
    for (Py_ssize_t i = 1; i + 1 < size; i++) {
        unsigned char c = bytes[i];
        if (c == 0xC2 && bytes[i + 1] == 0x85)
            return 1;
        if (i + 2 < size && bytes[i + 1] == (c == 0xEF ? 0xBB : 0x80)) {
            unsigned char last = bytes[i + 2];
            if ((c == 0xEF && last == 0xBF) || (c == 0xE2 && (last == 0xA8 || last == 0xA9)))
                return 1;
        }
    }
    return size >= 2 && bytes[0] == 0xC2 && bytes[1] == 0x85;
}

static int run_open(Run *run, Reader *reader, PyObject *text, PyObject *node) {
    Py_ssize_t size;
    const char *bytes = PyUnicode_AsUTF8AndSize(text, &size);
    if (bytes == NULL) {
        if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) { /* lone surrogates */
            PyErr_Clear();
            return slow();
        }
        return -1;
    }
    if (!PyUnicode_IS_ASCII(text) && read_apart((const unsigned char *)bytes, size))
        return slow();
    if (!yaml_parser_initialize(&run->parser)) {
        PyErr_NoMemory();
        return -1;
    }
    yaml_parser_set_input_string(&run->parser, (const unsigned char *)bytes, (size_t)size);
    run->has_event = 0;
    run->reader = reader;
    run->node = node;
    return 0;
}

static void run_close(Run *run) {
    if (run->has_event)
        yaml_event_delete(&run->event);
    yaml_parser_delete(&run->parser);
}

/* The root event of the text's one document: 1, 0 for an empty stream, -1 on error. */
static int document_root(Run *run) {
    if (next_event(run) < 0)
        return -1;
    if (run->event.type != YAML_STREAM_START_EVENT)
        return slow();
    if (next_event(run) < 0)
        return -1;
    if (run->event.type == YAML_STREAM_END_EVENT)
        return 0;
    /* %YAML and %TAG directives: the event path and the loaders check them (inputs refuse 1.1) */
    if (run->event.type != YAML_DOCUMENT_START_EVENT || run->event.data.document_start.version_directive != NULL ||
        run->event.data.document_start.tag_directives.start != NULL)
        return slow();
    return next_event(run) < 0 ? -1 : 1;
}

static int document_end(Run *run) {
    if (next_event(run) < 0)
        return -1;
    if (run->event.type != YAML_DOCUMENT_END_EVENT)
        return slow();
    if (next_event(run) < 0)
        return -1;
    return run->event.type == YAML_STREAM_END_EVENT ? 0 : slow();
}

static PyObject *Reader_load(Reader *self, PyObject *text) {
    if (!PyUnicode_Check(text))
        return PyErr_Format(PyExc_TypeError, "load() takes a str, not %.100s", Py_TYPE(text)->tp_name);
    Run run;
    if (run_open(&run, self, text, NULL) < 0)
        return NULL;
    PyObject *data = NULL;
    int root = document_root(&run);
    if (root == 0) {
        data = Py_NewRef(Py_None);
    } else if (root == 1) {
        data = build(&run, 0);
        if (data != NULL && document_end(&run) < 0)
            Py_CLEAR(data);
    }
    run_close(&run);
    return data;
}

static PyObject *Reader_locate(Reader *self, PyObject *args) {
    PyObject *text, *node;
    if (!PyArg_ParseTuple(args, "UO:locate", &text, &node))
        return NULL;
    Run run;
    if (run_open(&run, self, text, node) < 0)
        return NULL;
    PyObject *result = NULL;
    if (document_root(&run) == 1) {
        result = located(&run, 0);
        if (result != NULL && document_end(&run) < 0) /* what load refuses, locate refuses */
            Py_CLEAR(result);
    } else if (!PyErr_Occurred()) {
        slow(); /* an empty stream: nothing to locate */
    }
    run_close(&run);
    return result;
}

/* Each query read in one pass over the text; the text is read to its end, so what ``locate``
 * refuses ``find`` refuses too, unless ``early`` says ``load`` read this text whole with this
 * reader's resolution: then the reading stops once no answer can change. */
static PyObject *Reader_find(Reader *self, PyObject *args) {
    PyObject *text, *given, *node;
    int early = 0;
    if (!PyArg_ParseTuple(args, "UOO|p:find", &text, &given, &node, &early))
        return NULL;
    PyObject *list = PySequence_Fast(given, "find() takes a sequence of (path, at_value)");
    if (list == NULL)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(list);
    Query *queries = PyMem_New(Query, count ? count : 1);
    Query **order = PyMem_New(Query *, count ? count : 1);
    PyObject **paths = PyMem_New(PyObject *, count ? count : 1);
    PyObject *result = NULL;
    Py_ssize_t made = 0;
    int opened = 0;
    Run run;
    if (queries == NULL || order == NULL || paths == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; made < count; made++) {
        PyObject *path, *at_value, *item = PySequence_Fast_GET_ITEM(list, made);
        if (!PyArg_ParseTuple(item, "OO:find", &path, &at_value))
            goto done;
        int flag = PyObject_IsTrue(at_value);
        if (flag < 0 || (paths[made] = PySequence_Fast(path, "find() takes paths of keys and indexes")) == NULL)
            goto done;
        queries[made] = (Query){PySequence_Fast_ITEMS(paths[made]), PySequence_Fast_GET_SIZE(paths[made]), flag,
                                -1, -1, NULL, -1};
        order[made] = &queries[made];
    }
    if (run_open(&run, self, text, node) < 0)
        goto done;
    opened = 1;
    run.early = early;
    run.unsettled = 0;
    int root = document_root(&run);
    if (root == 1) {
        for (Py_ssize_t q = 0; q < count; q++) {
            if (queries[q].n > 0)
                run.unsettled++;
            else if ((queries[q].node = node_of(&run)) == NULL)
                goto done;
        }
        int walked = walk(&run, 0, order, count, 0);
        if (walked < 0 || (walked == 0 && document_end(&run) < 0))
            goto done;
        result = PyList_New(count);
        for (Py_ssize_t q = 0; result != NULL && q < count; q++) {
            PyObject *found = Py_BuildValue("(Oll)", queries[q].node ? queries[q].node : Py_None, queries[q].line,
                                            queries[q].column);
            if (found == NULL)
                Py_CLEAR(result);
            else
                PyList_SET_ITEM(result, q, found);
        }
    } else if (root == 0) {
        slow(); /* an empty stream: nothing to find */
    }
done:
    if (opened)
        run_close(&run);
    for (Py_ssize_t q = 0; q < made; q++) {
        Py_DECREF(paths[q]);
        Py_XDECREF(queries[q].node);
    }
    PyMem_Free(queries);
    PyMem_Free(order);
    PyMem_Free(paths);
    Py_DECREF(list);
    return result;
}

/* --- the type --- */

static PyObject *Reader_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"hinted", "resolve", "plain_key", "max_depth", NULL};
    PyObject *hinted, *resolve, *plain_key;
    long max_depth;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UOOl:Reader", names, &hinted, &resolve, &plain_key, &max_depth))
        return NULL;
    Reader *self = (Reader *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_ssize_t count = PyUnicode_GetLength(hinted);
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_UCS4 c = PyUnicode_READ_CHAR(hinted, i);
        if (c >= 128) {
            Py_DECREF(self);
            return PyErr_Format(PyExc_ValueError, "hinted characters are ASCII, not U+%04X", (unsigned)c);
        }
        self->hinted[c] = 1;
    }
    self->resolve = Py_NewRef(resolve);
    self->plain_key = Py_NewRef(plain_key);
    self->max_depth = max_depth;
    self->values = PyDict_New();
    self->keys = PyDict_New();
    if (self->values == NULL || self->keys == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* The reader holds the resolution's callables, which may reach it again (a resolution whose
 * functions close over its reader): the cycle collector sees those references and can break
 * them. */
static int Reader_traverse(Reader *self, visitproc visit, void *arg) {
    Py_VISIT(self->resolve);
    Py_VISIT(self->plain_key);
    Py_VISIT(self->values);
    Py_VISIT(self->keys);
    return 0;
}

static int Reader_clear(Reader *self) {
    Py_CLEAR(self->resolve);
    Py_CLEAR(self->plain_key);
    Py_CLEAR(self->values);
    Py_CLEAR(self->keys);
    return 0;
}

static void Reader_dealloc(Reader *self) {
    PyObject_GC_UnTrack(self);
    Reader_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef Reader_methods[] = {
    {"load", (PyCFunction)Reader_load, METH_O,
     "load(text) -> the data of the text's one document (None when empty); raises Slow."},
    {"locate", (PyCFunction)Reader_locate, METH_VARARGS,
     "locate(text, node) -> (root_node, where), nodes made by node(line, column, text, style); raises Slow."},
    {"find", (PyCFunction)Reader_find, METH_VARARGS,
     "find(text, [(path, at_value), ...], node, early=False) -> [(node or None, mark line, mark column), ...], "
     "-1 for no mark; one read for every path, to the text's end unless early (load read it whole); raises Slow."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "generator.yamlio._cread.Reader",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Reader(hinted, resolve, plain_key, max_depth): one resolution's compiled reader.",
    .tp_new = Reader_new,
    .tp_dealloc = (destructor)Reader_dealloc,
    .tp_traverse = (traverseproc)Reader_traverse,
    .tp_clear = (inquiry)Reader_clear,
    .tp_methods = Reader_methods,
};

static PyObject *libyaml_version(PyObject *module, PyObject *unused) {
    return PyUnicode_FromString(yaml_get_version_string());
}

static PyMethodDef module_methods[] = {
    {"libyaml_version", libyaml_version, METH_NOARGS, "The version of the libyaml this module runs."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "generator.yamlio._cread",
    "The YAML reader's compiled path (see generator.yamlio.read).", -1, module_methods,
};

PyMODINIT_FUNC PyInit__cread(void) {
    if (PyType_Ready(&ReaderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Slow = PyErr_NewExceptionWithDoc("generator.yamlio._cread.Slow",
                                     "The text needs the event path: nothing was built.", NULL, NULL);
    if (Slow == NULL || PyModule_AddObjectRef(m, "Slow", Slow) < 0 ||
        PyModule_AddObjectRef(m, "Reader", (PyObject *)&ReaderType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
