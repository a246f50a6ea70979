#!/usr/bin/env python3
"""Writes strict JSON schemas in kubeconform's layout ({kind}-{group}-{version}.json, lower case) for offline use.

  kubeconform_schemas.py OUT --swagger swagger.json --kinds Deployment,Service,...   Kubernetes kinds, from an OpenAPI v2 document
  kubeconform_schemas.py OUT --crd file.yaml [--crd ...]                              custom resources, from their CRDs

Strict means: an object that lists its properties allows no others (so a misspelt or misplaced field fails), except
where Kubernetes keeps unknown fields. int-or-string and quantities accept both numbers and strings, as the API does.
"""
import argparse
import copy
import json
import os
import sys

import yaml

NUMBER_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "number"}]}


def file_name(kind, group, version):
    group_part = group.split(".")[0] if group else ""
    return "-".join(p for p in [kind.lower(), group_part, version] if p) + ".json"


def strict(node):
    """A schema made strict; maps of named schemas (properties, definitions) are walked, not judged."""
    if isinstance(node, list):
        return [strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    if node.get("format") == "int-or-string" or node.get("x-kubernetes-int-or-string") is True:
        return dict(NUMBER_OR_STRING, description=node.get("description", ""))
    result = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties", "definitions") and isinstance(value, dict):
            result[key] = {name: strict(schema) for name, schema in value.items()}
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") and isinstance(value, str):
            result[key] = float(value)   # the CRD generator writes large bounds as 3.1536E7, which YAML 1.1 reads as text
        else:
            result[key] = strict(value)
    if "properties" in result and "additionalProperties" not in result and result.get("x-kubernetes-preserve-unknown-fields") is not True:
        result["additionalProperties"] = False
    return result


def refs(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/definitions/"):
            found.add(ref[len("#/definitions/"):])
        for value in node.values():
            refs(value, found)
    elif isinstance(node, list):
        for value in node:
            refs(value, found)


def from_swagger(out, swagger_path, kinds):
    definitions = json.load(open(swagger_path))["definitions"]
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = dict(NUMBER_OR_STRING)
    definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = dict(NUMBER_OR_STRING)
    wanted = set(kinds)
    written = 0
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            if gvk["kind"] not in wanted:
                continue
            closure, todo = set(), {name}
            while todo:
                current = todo.pop()
                if current in closure:
                    continue
                closure.add(current)
                found = set()
                refs(definitions[current], found)
                todo |= found - closure
            schema = strict(copy.deepcopy(definition))
            schema["definitions"] = {d: strict(copy.deepcopy(definitions[d])) for d in sorted(closure)}
            # apiVersion and kind must be exactly this kind's
            schema["properties"]["apiVersion"] = {"enum": [f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]]}
            schema["properties"]["kind"] = {"enum": [gvk["kind"]]}
            with open(os.path.join(out, file_name(gvk["kind"], gvk["group"], gvk["version"])), "w") as f:
                json.dump(schema, f)
            written += 1
    missing = wanted - {g["kind"] for d in definitions.values() for g in d.get("x-kubernetes-group-version-kind", [])}
    if missing:
        sys.exit(f"no schema for {sorted(missing)} in {swagger_path}")
    return written


def from_crds(out, crd_paths):
    written = 0
    for path in crd_paths:
        for crd in yaml.safe_load_all(open(path)):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                schema = strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
                props = schema.setdefault("properties", {})
                props["apiVersion"] = {"enum": [f"{group}/{version['name']}"]}
                props["kind"] = {"enum": [kind]}
                props.setdefault("metadata", {"type": "object"})
                schema["additionalProperties"] = False
                with open(os.path.join(out, file_name(kind, group, version["name"])), "w") as f:
                    json.dump(schema, f)
                written += 1
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--swagger")
    parser.add_argument("--kinds", default="")
    parser.add_argument("--crd", action="append", default=[])
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    count = 0
    if args.swagger:
        count += from_swagger(args.out, args.swagger, [k for k in args.kinds.split(",") if k])
    count += from_crds(args.out, args.crd)
    print(f"{count} schemas in {args.out}")


if __name__ == "__main__":
    main()
