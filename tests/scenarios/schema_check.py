#!/usr/bin/env python3
"""Checks scenario files against scenarios/scenario.schema.json for tests/scenarios/schema_test.cpp.

Usage: schema_check.py MANIFEST.json, where the manifest is
  {"schema": PATH, "accept": [PATH...], "reject": [PATH...], "defaults": [[INPUT, RESOLVED]...],
   "closed": [PATH...]}
and every PATH holds comment-free JSON. Prints one JSON report on stdout:
  {"schema": [problems], "accept": {PATH: [errors]}, "reject": {PATH: rejected?},
   "defaults": {RESOLVED: [problems]}, "open": {PATH: [objects accepting an unknown key]},
   "uncovered": [schema places no resolved scenario used]}
"defaults" compares a loader-resolved scenario with its input: every key the loader filled in must carry the
schema's "default" for that place (the defaults the schema shows in an editor are the loader's), and only keys
whose default the loader computes (marked "x-computed-default" in the schema: the file's name, a label of the
data, ...) may lack one.
"""
import json
import sys

import jsonschema


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Checker:
    def __init__(self, schema):
        self.schema = schema
        self.used = set()  # (id of a schema object with "properties", key) met in some resolved scenario
        self.cls = jsonschema.validators.validator_for(schema)
        self.validator = self.cls(schema)

    def errors(self, instance):
        found = sorted(self.validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
        return ["$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path) + ": " +
                e.message for e in found]

    def is_valid(self, instance, subschema):
        if isinstance(subschema, bool):
            return subschema
        # The subschema's references point into the whole document, so wrap it beside the definitions.
        wrapped = {"definitions": self.schema.get("definitions", {}), "allOf": [subschema]}
        return self.cls(wrapped).is_valid(instance)

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise ValueError("only local references are supported: " + ref)
        node = self.schema
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def applicable(self, subschema, instance):
        """The subschemas that apply to `instance`, in order from general to specific."""
        if not isinstance(subschema, dict):
            return []
        out = [subschema]
        if "$ref" in subschema:
            out += self.applicable(self.resolve(subschema["$ref"]), instance)
        for sub in subschema.get("allOf", []):
            out += self.applicable(sub, instance)
        for key in ("anyOf", "oneOf"):
            for sub in subschema.get(key, []):
                if self.is_valid(instance, sub):
                    out += self.applicable(sub, instance)
        if "if" in subschema:
            branch = "then" if self.is_valid(instance, subschema["if"]) else "else"
            if branch in subschema:
                out += self.applicable(subschema[branch], instance)
        return out

    def check_defaults(self, given, resolved, schemas, path, problems, computed_above=False):
        # computed_above: inside a key whose value the loader computes (merged with what was given), every
        # value filled in below is computed too.
        if isinstance(resolved, dict):
            given = given if isinstance(given, dict) else None
            for key, value in resolved.items():
                where = path + "." + key
                owners = [s for s in schemas if isinstance(s.get("properties"), dict) and key in s["properties"]]
                self.used.update((id(s), key) for s in owners)
                property_schemas = [s["properties"][key] for s in owners]
                if not owners:  # a map's entry (e.g. compute.codecs.qsgd): its schema is additionalProperties
                    property_schemas = [s["additionalProperties"] for s in schemas
                                        if isinstance(s.get("additionalProperties"), dict)]
                below = [a for p in property_schemas for a in self.applicable(p, value)]
                computed = computed_above or any("x-computed-default" in s for s in below)
                inner = given.get(key) if given is not None else None
                if given is not None and key not in given:
                    # The most specific default wins (e.g. coding "fixed" inside the code-table branch).
                    defaults = [s["default"] for s in below if "default" in s]
                    if isinstance(value, dict) and not defaults and not computed:
                        inner = {}  # an omitted section: each of its keys was filled in, checked below
                    else:
                        inner = value  # a default value comes in whole (a computed one included)
                        if not defaults:
                            if not computed:
                                problems.append(f"{where}: the loader filled in {json.dumps(value)} but the "
                                                "schema states no default here")
                        elif defaults[-1] != value:
                            problems.append(f"{where}: the loader filled in {json.dumps(value)} but the "
                                            f"schema's default is {json.dumps(defaults[-1])}")
                self.check_defaults(inner, value, below, where, problems, computed)
        elif isinstance(resolved, list):
            given = given if isinstance(given, list) else []
            for i, value in enumerate(resolved):
                below = []
                for s in schemas:
                    items = s.get("items") if isinstance(s, dict) else None
                    if isinstance(items, dict):
                        below += self.applicable(items, value)
                    elif isinstance(items, list) and i < len(items):
                        below += self.applicable(items[i], value)
                inner = given[i] if i < len(given) else None
                self.check_defaults(inner, value, below, f"{path}[{i}]", problems)


    def open_places(self, instance):
        """JSON paths of the objects in `instance` where the schema accepts an unknown key."""
        out = []

        def visit(node, path):
            if isinstance(node, dict):
                node["no_such_key"] = 1
                if not self.errors(root):
                    out.append(path)
                del node["no_such_key"]
                for key, value in node.items():
                    visit(value, path + "." + key)
            elif isinstance(node, list):
                for i, value in enumerate(node):
                    visit(value, f"{path}[{i}]")

        root = instance
        visit(root, "$")
        return out

    def uncovered(self):
        """Schema keys (not ones marked false, i.e. forbidden) that no checked scenario used."""
        out = []

        def walk(node, path):
            if isinstance(node, dict):
                if node.get("x-input-only"):  # a form the loader never writes into a resolved scenario
                    return
                for key, value in (node.get("properties") or {}).items():
                    input_only = isinstance(value, dict) and value.get("x-input-only")
                    if value is not False and not input_only and (id(node), key) not in self.used:
                        out.append(path + "/properties/" + key)
                for key, value in node.items():
                    if key != "if":  # conditions name keys to test them, not to allow them
                        walk(value, path + "/" + key)
            elif isinstance(node, list):
                for i, value in enumerate(node):
                    walk(value, f"{path}/{i}")

        walk(self.schema, "#")
        return out


def main():
    manifest = load(sys.argv[1])
    schema = load(manifest["schema"])
    report = {"schema": [], "accept": {}, "reject": {}, "defaults": {}, "open": {}}
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is None:
        report["schema"].append("the schema's $schema names no draft this jsonschema knows")
        print(json.dumps(report))
        return
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        report["schema"].append(str(e.message) + " at " + "/".join(str(p) for p in e.absolute_schema_path))
        print(json.dumps(report))
        return
    checker = Checker(schema)
    for path in manifest.get("accept", []):
        report["accept"][path] = checker.errors(load(path))
    for path in manifest.get("reject", []):
        report["reject"][path] = len(checker.errors(load(path))) > 0
    for given_path, resolved_path in manifest.get("defaults", []):
        problems = []
        resolved = load(resolved_path)
        checker.check_defaults(load(given_path), resolved, checker.applicable(schema, resolved), "$", problems)
        report["defaults"][resolved_path] = problems
    for path in manifest.get("closed", []):
        report["open"][path] = checker.open_places(load(path))
    if manifest.get("defaults"):
        report["uncovered"] = checker.uncovered()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
