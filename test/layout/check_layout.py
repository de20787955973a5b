"""The layout's promises (issue 31), checked on the built objects and the tree:

 1. No circle between folders: the graph whose arrows are "a file in folder
    A calls or reads a symbol defined in folder B" (from `nm` on every object
    of the libraries and programs) has no cycle.
 2. engine/ takes nothing from model/, render/ or apps/: no engine object
    uses a symbol defined there, and no engine source includes their headers.
 3. No source file over MAX_LINES lines.

usage: check_layout.py SOURCE_DIR BUILD_DIR
Prints the folder graph, then each broken promise; exit 1 when one is."""
import collections
import os
import re
import subprocess
import sys

MAX_LINES = 1000
SOURCE_SUFFIXES = ('.c', '.h', '.py', '.sh')
# folders of the tree whose files are sources (test/data holds recorded problems)
SOURCE_ROOTS = ('engine', 'model', 'render', 'apps', 'test')
SKIP_DIRS = ('test/data',)


def object_files(source, build):
    """(source path relative to the tree, object path) of every object CMake
    built: BUILD/SUB/CMakeFiles/T.dir/INNER.o was compiled from SUB/INNER,
    where INNER's "__" stands for "..". """
    out = []
    for dirpath, _, files in os.walk(build):
        for f in files:
            if not f.endswith('.c.o'):
                continue
            path = os.path.join(dirpath, f)
            m = re.search(r'^(.*?)/?CMakeFiles/[^/]+\.dir/(.*)\.o$', os.path.relpath(path, build))
            if not m:
                continue
            inner = '/'.join('..' if p == '__' else p for p in m.group(2).split('/'))
            src = os.path.normpath(os.path.join(m.group(1), inner))
            # objects of sources since moved or deleted linger in a build tree
            if not src.startswith('..') and os.path.exists(os.path.join(source, src)):
                out.append((src, path))
    return out


def symbols(objects):
    """defs: symbol -> set of defining sources; uses: source -> used symbols."""
    defs = collections.defaultdict(set)
    uses = collections.defaultdict(set)
    for src, obj in objects:
        text = subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout
        for line in text.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBRVW':
                defs[f[2]].add(src)
            elif len(f) == 2 and f[0] == 'U':
                uses[src].add(f[1])
    return defs, uses


def top_folder(src):
    return src.split('/')[0]


def folder_graph(defs, uses):
    """arrows between folders (engine/smooth, apps/cli ...), each with an example."""
    arrows = {}
    for src, syms in uses.items():
        if src.startswith('test/'):
            continue
        a = os.path.dirname(src)
        for s in syms:
            where = {d for d in defs.get(s, ()) if not d.startswith('test/')}
            # a symbol two programs define each their own way (the CLI's
            # cli_solvers_compare execs impetus-compare, which defines its
            # own): a file's own folder's definition is the one it links
            if any(os.path.dirname(d) == a for d in where):
                continue
            for d in where:
                b = os.path.dirname(d)
                if a != b:
                    arrows.setdefault((a, b), f'{os.path.basename(src)} uses {s} ({d})')
    return arrows


def cycles(arrows):
    """strongly connected components of more than one folder (Tarjan)."""
    succ = collections.defaultdict(list)
    for a, b in arrows:
        succ[a].append(b)
    nodes = sorted({n for e in arrows for n in e})
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def engine_includes_above(source):
    """engine sources that include a header of model/, render/ or apps/."""
    above = set()
    for top in ('model', 'render', 'apps'):
        for dirpath, _, files in os.walk(os.path.join(source, top)):
            above.update(f for f in files if f.endswith('.h'))
    engine_headers = set()
    for dirpath, _, files in os.walk(os.path.join(source, 'engine')):
        engine_headers.update(f for f in files if f.endswith('.h'))
    bad = []
    for dirpath, _, files in os.walk(os.path.join(source, 'engine')):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, f)
            for n, line in enumerate(open(path, encoding='utf-8'), 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                name = m.group(1)
                if '..' in name or (os.path.basename(name) in above and
                                    os.path.basename(name) not in engine_headers):
                    bad.append(f'{os.path.relpath(path, source)}:{n}: includes "{name}"')
    return bad


def long_files(source):
    bad = []
    for root in SOURCE_ROOTS:
        for dirpath, _, files in os.walk(os.path.join(source, root)):
            rel = os.path.relpath(dirpath, source)
            if any(rel == s or rel.startswith(s + '/') for s in SKIP_DIRS):
                continue
            for f in files:
                if f.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(dirpath, f)
                    with open(path, encoding='utf-8', errors='replace') as fh:
                        n = sum(1 for _ in fh)
                    if n > MAX_LINES:
                        bad.append(f'{os.path.relpath(path, source)}: {n} lines (at most {MAX_LINES})')
    return bad


def self_check():
    """the circle finder finds a circle of two and of three, and none in a DAG"""
    assert cycles({('a', 'b'): '', ('b', 'a'): ''}) == [['a', 'b']]
    assert cycles({('a', 'b'): '', ('b', 'c'): '', ('c', 'a'): '', ('c', 'd'): ''}) == [['a', 'b', 'c']]
    assert cycles({('a', 'b'): '', ('a', 'c'): '', ('b', 'c'): ''}) == []


def main():
    self_check()
    source, build = sys.argv[1], sys.argv[2]
    objects = object_files(source, build)
    if not any(src.startswith('engine/') for src, _ in objects):
        print(f'no engine objects under {build}: build first')
        return 1
    defs, uses = symbols(objects)
    arrows = folder_graph(defs, uses)
    print('folder graph (A -> B: a file in A uses a symbol defined in B):')
    for (a, b), why in sorted(arrows.items()):
        print(f'  {a} -> {b}   e.g. {why}')
    problems = []
    for comp in cycles(arrows):
        problems.append('import circle between folders: ' + ' <-> '.join(comp))
    for (a, b), why in sorted(arrows.items()):
        if top_folder(a) == 'engine' and top_folder(b) in ('model', 'render', 'apps'):
            problems.append(f'engine/ takes from {top_folder(b)}/: {a} -> {b}: {why}')
    problems += engine_includes_above(source)
    problems += long_files(source)
    for p in problems:
        print('FAIL:', p)
    print(f'{len(objects)} objects, {len(arrows)} arrows between folders, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
