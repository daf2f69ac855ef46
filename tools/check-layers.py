#!/usr/bin/env python3
"""Checks that the include graph respects the layers CMakeLists.txt declares.

Each `sgdsim_layer(NAME DIR PUBLIC deps... PRIVATE deps...)` is one library of the files in DIR; the program
(`add_executable` of app/, linked with `sgdsim_link`) and the libtorch plugin (`add_library(... MODULE ...)`)
are targets too. Data flows down: a target may include only what it links. The layers, top to bottom, are
printed on success; sim/ sits above algorithms/ (it implements protocols::Port, which the protocols own), and
sim/config/ above sim/. The check fails when
  * a C++ file under a source folder is in no target's folder (CMakeLists.txt compiles nothing from there);
  * a file includes a header of a layer (or an external library) its target does not link, directly or
    through the PUBLIC dependencies of what it links: a layer above it, or one beside it;
  * a layer links something none of its files includes (a needless link);
  * a dependency is PRIVATE although a public header of the layer includes it (users of the header need it
    too), or PUBLIC although only .cpp files and private headers include it. A header is public when a file
    outside its folder (another layer, app/, tests/, bench/) includes it.
Run by ctest ("layers: ..."); `python3 tools/check-layers.py` from anywhere prints every violation.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The folders whose C++ files belong to targets (tests/, bench/ and tools/ have their own rules).
SOURCE_FOLDERS = ("algorithms", "analysis", "app", "common", "emulation", "observation", "scenarios", "sim",
                  "topologies")

# External libraries: include prefix -> the CMake target that provides it.
EXTERNAL = {
    "nlohmann/": "nlohmann_json::nlohmann_json",
    "Eigen/": "Eigen3::Eigen",
    "simgrid/": "PkgConfig::SimGrid",
    "xbt/": "PkgConfig::SimGrid",
    "fmt/": "fmt::fmt",
    "zlib.h": "ZLIB::ZLIB",
    "boost/": "Boost::headers",
    "CLI/": "CLI11::CLI11",
    "hwy/": "PkgConfig::HWY",
    "torch/": "torch",
    "zstd.h": "PkgConfig::zstd",
}


def scoped(words, name, default=None):
    """PUBLIC and PRIVATE dependencies from a list of words with scope keywords."""
    public, private, scope = set(), set(), default
    for word in words:
        if word in ("PUBLIC", "PRIVATE"):
            scope = word
            continue
        word = re.sub(r"^\$<TARGET_FILE:([^>]+)>$", r"\1", word)  # an archive linked by file
        if scope == "PUBLIC":
            public.add(word)
        elif scope == "PRIVATE":
            private.add(word)
        else:
            sys.exit(f"CMakeLists.txt: {name}: dependency {word} has no PUBLIC/PRIVATE scope")
    return public, private


def parse_targets():
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    targets = {}
    for match in re.finditer(r"^\s*sgdsim_layer\(([^)]*)\)", text, re.M):
        words = match.group(1).split()
        public, private = scoped(words[2:], words[0])
        targets[words[0]] = {"dir": words[1], "public": public, "private": private, "kind": "layer"}
    # The program: its sources' folder (file(GLOB ...)) and what sgdsim_link() links it with.
    globs = dict(re.findall(r"file\(GLOB (\w+) CONFIGURE_DEPENDS \$\{CMAKE_CURRENT_SOURCE_DIR\}/([\w/]+)/\*\.cpp\)",
                            text))
    for name, variable in re.findall(r"^\s*add_executable\((\w+) \$\{(\w+)\}\)", text, re.M):
        links = re.search(r"^\s*sgdsim_link\(" + name + r"\s([^)]*)\)", text, re.M)
        public, private = scoped(links.group(1).split() if links else [], name)
        targets[name] = {"dir": globs[variable], "public": public, "private": private, "kind": "program"}
    # Loadable modules (the libtorch plugin): the folder of their first source. They link archives by file,
    # without those archives' usage requirements, so only their includes are checked.
    for name, sources in re.findall(r"^\s*add_library\((\w+) MODULE ([^)]*)\)", text, re.M):
        links = re.search(r"^\s*target_link_libraries\(" + name + r"\s([^)]*)\)", text, re.M)
        public, private = scoped(links.group(1).split() if links else [], name)
        targets[name] = {"dir": os.path.dirname(sources.split()[0]), "public": public, "private": private,
                         "kind": "module"}
    return targets


def reachable(targets, name):
    """What files of `name` may include: itself, what it links, and the PUBLIC deps of those, recursively."""
    seen = {name}
    frontier = list(targets[name]["public"] | targets[name]["private"])
    while frontier:
        dep = frontier.pop()
        if dep in seen:
            continue
        seen.add(dep)
        if dep in targets:
            frontier.extend(targets[dep]["public"])
    return seen


def levels(targets):
    """The layers from the top (what nothing else links) down to common/: name -> height."""
    height = {}

    def of(name):
        if name not in height:
            height[name] = 0
            deps = [d for d in targets[name]["public"] | targets[name]["private"] if d in targets]
            height[name] = 1 + max((of(d) for d in deps), default=-1)
        return height[name]

    for name in targets:
        of(name)
    return height


def owner(targets, header):
    """The target (or external library) a quoted or bracketed include belongs to; None for the standard
    library."""
    folder = os.path.dirname(header)
    for name, target in targets.items():
        if folder == target["dir"] and target["kind"] != "module":
            return name
    for prefix, external in EXTERNAL.items():
        if header.startswith(prefix):
            return external
    return None


def cpp_files():
    """Every C++ file under the source folders, relative to the root."""
    for top in SOURCE_FOLDERS:
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for file in sorted(files):
                if file.endswith((".cpp", ".hpp")):
                    yield os.path.relpath(os.path.join(folder, file), ROOT)


def included_from_outside():
    """Headers that some file outside their own folder includes."""
    out = set()
    for top, _, files in os.walk(ROOT):
        relative = os.path.relpath(top, ROOT)
        if relative.startswith(("build", ".git")):
            continue
        for file in files:
            if not file.endswith((".cpp", ".hpp")):
                continue
            for line in open(os.path.join(top, file), encoding="utf-8", errors="replace"):
                match = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if match and os.path.dirname(match.group(1)) != relative:
                    out.add(match.group(1))
    return out


def main():
    targets = parse_targets()
    kind_layers = set(re.search(r"set\(SGDSIM_KIND_LAYERS ([^)]*)\)",
                                open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()).group(1).split())
    public_headers = included_from_outside()
    problems = []
    by_folder = {}
    for name, target in targets.items():
        by_folder[target["dir"]] = name
    files_of = {name: [] for name in targets}
    for path in cpp_files():
        name = by_folder.get(os.path.dirname(path))
        if name is None:
            problems.append(f"{path}: in no target's folder (CMakeLists.txt compiles nothing from "
                            f"{os.path.dirname(path)}/): make it a layer or move the file")
        else:
            files_of[name].append(path)
    for name, target in sorted(targets.items()):
        allowed = reachable(targets, name)
        used_by_headers, used_by_sources = set(), set()
        for path in files_of[name]:
            file = os.path.basename(path)
            for number, line in enumerate(open(os.path.join(ROOT, path), encoding="utf-8"), 1):
                match = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
                if not match:
                    continue
                dep = owner(targets, match.group(1))
                if dep is None or dep == name:
                    continue
                public = file.endswith(".hpp") and path in public_headers
                (used_by_headers if public else used_by_sources).add(dep)
                if dep not in allowed:
                    above = dep in targets and name in reachable(targets, dep)
                    problems.append(f"{path}:{number}: includes {match.group(1)} of {dep}, which {name} "
                                    f"does not link" + (f" ({dep} sits above {name}: data flows down)"
                                                        if above else ""))
        if target["kind"] == "module":
            continue
        # Direct use needs a direct link; what a target links, it must use.
        used = used_by_headers | used_by_sources
        for dep in sorted(target["public"] | target["private"]):
            if dep not in used:
                problems.append(f"CMakeLists.txt: {name} links {dep}, which none of its files includes")
        for dep in sorted(target["private"] & used_by_headers):
            problems.append(f"CMakeLists.txt: {name} links {dep} PRIVATE, but a header of {target['dir']}/ "
                            f"includes it: make it PUBLIC")
        for dep in sorted(target["public"] - used_by_headers):
            if dep in used_by_sources:
                problems.append(f"CMakeLists.txt: {name} links {dep} PUBLIC, but only .cpp files include it: "
                                f"make it PRIVATE")
        for dep in sorted(used - target["public"] - target["private"]):
            # The program gets the layers that hold kinds through the layers that link them: named on its own
            # link line too, their archives would be linked whole twice (duplicate symbols).
            if target["kind"] == "program" and dep in kind_layers:
                continue
            if dep in allowed:
                problems.append(f"CMakeLists.txt: {name} includes {dep} directly but links it only "
                                f"through another layer: link it")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} layering problem(s)", file=sys.stderr)
        return 1
    height = levels(targets)
    order = []
    for level in sorted(set(height.values()), reverse=True):
        order.append(" | ".join(sorted(targets[n]["dir"] + "/" for n in targets if height[n] == level
                                       and targets[n]["kind"] != "module")))
    print(f"layers: {len(targets)} targets, includes consistent with their links; top to bottom: "
          + " > ".join(o for o in order if o))
    return 0


if __name__ == "__main__":
    sys.exit(main())
