#!/usr/bin/python3
"""Checks that no #include runs back up Ruvio's layers (tools/layers.txt).

usage: tools/check_layers.py [PROJECT_ROOT]      (default: this script's project)

Every folder under worker/, supervisor/, proto/ and shared/ that holds C/C++ sources is a
layer of its own, listed top to bottom in tools/layers.txt. A file may include files of its
own folder and of folders listed below it. The script also builds the folder graph of every
quoted include and reports each cycle between folders (any depth, any length), so a pair of
folders that include each other is found even if the list were wrong. Prints one line per
problem, then a summary; exits 1 when there is any.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(HERE))
TOPS = ("worker", "supervisor", "proto", "shared")
SOURCES = (".cpp", ".hpp", ".h", ".cc", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]')


def read_layers(path):
    """[(folder, noloop)] top to bottom."""
    layers = []
    with open(path) as fh:
        for line in fh:
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            layers.append((words[0], len(words) > 1 and words[1] == "noloop"))
    return layers


def source_folders(root):
    found = {}
    for top in TOPS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            names = sorted(f for f in files if f.endswith(SOURCES))
            if names:
                found[os.path.relpath(dirpath, root)] = names
    return found


def cycles(graph):
    """Strongly connected components of more than one folder (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def main():
    layers = read_layers(os.path.join(HERE, "layers.txt"))
    rank = {folder: i for i, (folder, _) in enumerate(layers)}
    noloop = {folder for folder, flag in layers if flag}
    folders = source_folders(ROOT)
    problems = []
    for folder in sorted(folders):
        if folder not in rank:
            problems.append(f"{folder}: a source folder that tools/layers.txt does not list")
    for folder in sorted(rank):
        if folder not in folders:
            problems.append(f"tools/layers.txt lists {folder}, which holds no sources")
    graph = {folder: set() for folder in folders}
    checked = 0
    for folder, names in sorted(folders.items()):
        for name in names:
            rel = os.path.join(folder, name)
            checked += 1
            with open(os.path.join(ROOT, rel), errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    kind, target = m.groups()
                    if kind == "<":
                        if target == "uv.h" and folder in noloop:
                            problems.append(f"{rel}:{n}: includes <uv.h>, but {folder} must "
                                            "not touch the event loop")
                        continue
                    target_folder = os.path.dirname(target)
                    if target_folder not in folders or target_folder == folder:
                        continue
                    graph[folder].add(target_folder)
                    if target_folder.startswith("supervisor") and not folder.startswith(
                            "supervisor"):
                        problems.append(f"{rel}:{n}: includes {target} (supervisor code is "
                                        "not shared)")
                    elif folder in rank and target_folder in rank and \
                            rank[target_folder] < rank[folder]:
                        problems.append(f"{rel}:{n}: includes {target} — {target_folder} is "
                                        f"above {folder}")
    for component in cycles(graph):
        problems.append("folders that include each other: " + " <-> ".join(component))
    for p in problems:
        print(p)
    print(f"layers: {len(folders)} folders, {checked} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
