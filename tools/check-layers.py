#!/usr/bin/env python3
"""Checks that the include graph respects the layers CMakeLists.txt declares.

Each `sgdsim_layer(NAME DIR PUBLIC deps... PRIVATE deps...)` is one library of the files in DIR. The check
fails when
  * a file includes a header of a layer (or an external library) its layer does not link, directly or through
    the PUBLIC dependencies of what it links: a layer above it, or one beside it;
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


def parse_layers():
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    layers = {}
    for match in re.finditer(r"^\s*sgdsim_layer\(([^)]*)\)", text, re.M):
        words = match.group(1).split()
        name, folder = words[0], words[1]
        public, private, scope = set(), set(), None
        for word in words[2:]:
            if word in ("PUBLIC", "PRIVATE"):
                scope = word
            elif scope == "PUBLIC":
                public.add(word)
            elif scope == "PRIVATE":
                private.add(word)
            else:
                sys.exit(f"CMakeLists.txt: sgdsim_layer({name}): dependency {word} has no PUBLIC/PRIVATE scope")
        layers[name] = {"dir": folder, "public": public, "private": private}
    return layers


def reachable(layers, name):
    """What files of `name` may include: itself, what it links, and the PUBLIC deps of those, recursively."""
    seen = {name}
    frontier = list(layers[name]["public"] | layers[name]["private"])
    while frontier:
        dep = frontier.pop()
        if dep in seen:
            continue
        seen.add(dep)
        if dep in layers:
            frontier.extend(layers[dep]["public"])
    return seen


def owner(layers, header):
    """The layer (or external target) a quoted or bracketed include belongs to; None for the standard library."""
    folder = os.path.dirname(header)
    best = None
    for name, layer in layers.items():
        if folder == layer["dir"] and (best is None or len(layer["dir"]) > len(layers[best]["dir"])):
            best = name
    if best:
        return best
    for prefix, target in EXTERNAL.items():
        if header.startswith(prefix):
            return target
    return None


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
    layers = parse_layers()
    public_headers = included_from_outside()
    problems = []
    for name, layer in sorted(layers.items()):
        allowed = reachable(layers, name)
        used_by_headers, used_by_sources = set(), set()
        folder = os.path.join(ROOT, layer["dir"])
        for file in sorted(os.listdir(folder)):
            if not file.endswith((".cpp", ".hpp")):
                continue
            path = os.path.join(layer["dir"], file)
            for number, line in enumerate(open(os.path.join(folder, file), encoding="utf-8"), 1):
                match = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', line)
                if not match:
                    continue
                target = owner(layers, match.group(1))
                if target is None or target == name:
                    continue
                public = file.endswith(".hpp") and path in public_headers
                (used_by_headers if public else used_by_sources).add(target)
                if target not in allowed:
                    problems.append(f"{path}:{number}: includes {match.group(1)} of {target}, which {name} "
                                    f"does not link")
        # Direct use needs a direct link; what a layer links, it must use.
        used = used_by_headers | used_by_sources
        for dep in sorted(layer["public"] | layer["private"]):
            if dep not in used:
                problems.append(f"CMakeLists.txt: {name} links {dep}, which none of its files includes")
        for dep in sorted(layer["private"] & used_by_headers):
            problems.append(f"CMakeLists.txt: {name} links {dep} PRIVATE, but a header of {layer['dir']}/ "
                            f"includes it: make it PUBLIC")
        for dep in sorted(layer["public"] - used_by_headers):
            if dep in used_by_sources:
                problems.append(f"CMakeLists.txt: {name} links {dep} PUBLIC, but only .cpp files include it: "
                                f"make it PRIVATE")
        for dep in sorted(used - layer["public"] - layer["private"]):
            if dep in allowed:
                problems.append(f"CMakeLists.txt: {name} includes {dep} directly but links it only "
                                f"through another layer: link it")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} layering problem(s)", file=sys.stderr)
        return 1
    print(f"layers: {len(layers)} libraries, includes consistent with their links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
