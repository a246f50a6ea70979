#!/usr/bin/env python3
"""docs/reference/resources.md from the CRDs (crds/*.yml, which api's CrdTest keeps equal to the classes) and
docs/reference/chart-values.md from the chart (values.yaml, its comments, and values.schema.json).

  reference.py           write both pages
  reference.py --check   exit 1 when a page differs from what the code gives (make test runs this)
"""
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / 'docs' / 'reference'


def cell(text):
    return ' '.join(str(text).split()).replace('|', '\\|')


def constraints(schema):
    said = []
    if 'default' in schema:
        said.append(f"default `{json.dumps(schema['default'])}`")
    if 'enum' in schema:
        said.append('one of ' + ', '.join(f'`{v}`' for v in schema['enum']))
    if 'pattern' in schema:
        said.append(f"pattern `{schema['pattern']}`")
    for key, word in (('minimum', 'min'), ('maximum', 'max'), ('minItems', 'min items'), ('maxItems', 'max items'),
                      ('maxLength', 'max length')):
        if key in schema:
            value = schema[key]
            said.append(f'{word} {int(float(value)) if float(value).is_integer() else value}')
    for rule in schema.get('x-kubernetes-validations', []):
        said.append(f"rule: {rule.get('message', rule['rule'])}")
    return '; '.join(said)


def type_of(schema):
    if schema.get('x-kubernetes-int-or-string'):
        return 'int or string'
    t = schema.get('type', 'object')
    if t == 'array':
        return f"array of {type_of(schema.get('items', {}))}"
    if t == 'object' and 'additionalProperties' in schema and 'properties' not in schema:
        return f"map of {type_of(schema['additionalProperties'])}"
    return t


def fields(schema, path, rows):
    for name, child in sorted(schema.get('properties', {}).items()):
        here = f'{path}.{name}' if path else name
        rows.append((here, type_of(child), child.get('description', ''), constraints(child)))
        target = child.get('items', child) if child.get('type') == 'array' else child
        if target.get('type') == 'object' and 'additionalProperties' in target and 'properties' not in target:
            target = target['additionalProperties']
            here += '.*'
        elif child.get('type') == 'array':
            here += '[]'
        fields(target, here, rows)


def resources():
    page = ['# Resources reference', '',
            '*Reference, generated from the CRDs (`test/docs/reference.py`; `crds/` is what the classes generate).* '
            'Every field of each resource\'s spec and status: its type, meaning, default and the rules admission applies. '
            'The guides: [installing.md](../installing.md), [suites.md](../suites.md), [operator.md](../operator.md).', '']
    for crd_file in sorted((ROOT / 'crds').glob('*.yml')):
        crd = yaml.safe_load(crd_file.read_text())
        names = crd['spec']['names']
        version = crd['spec']['versions'][0]
        schema = version['schema']['openAPIV3Schema']
        page += [f"## {names['kind']}", '',
                 f"`{crd['spec']['group']}/{version['name']}`, short name `{', '.join(names.get('shortNames', []))}`, "
                 f"scope {crd['spec']['scope']}. `kubectl get {names.get('shortNames', [names['plural']])[0]}` shows: "
                 + ', '.join(c['name'] for c in version.get('additionalPrinterColumns', [])) + '.', '']
        for part in ('spec', 'status'):
            if part not in schema.get('properties', {}):
                continue
            page += [f'### {names["kind"]}.{part}', '', '| field | type | meaning | default and rules |', '|---|---|---|---|']
            rows = []
            fields(schema['properties'][part], '', rows)
            page += [f'| `{f}` | {t} | {cell(d)} | {cell(c)} |' for f, t, d, c in rows]
            page.append('')
    return '\n'.join(page)


KEY = re.compile(r'^(\s*)([A-Za-z0-9_.-]+):(?:\s*(.*?))?\s*$')


def split_comment(value):
    """A value and its trailing comment ('IfNotPresent  # why' -> ('IfNotPresent', 'why'))."""
    m = re.match(r'^((?:"[^"]*"|\'[^\']*\'|[^#])*?)\s*(?:#\s?(.*))?$', value or '')
    return (m.group(1).strip(), (m.group(2) or '').strip()) if m else (value, '')


def schema_type(schema, path):
    node = schema
    for part in path:
        node = node.get('properties', {}).get(part)
        if node is None:
            return ''
    t = node.get('type', '')
    if not t and 'enum' in node:
        return 'one of ' + ', '.join(str(v) for v in node['enum'])
    return ' or '.join(t) if isinstance(t, list) else t


def chart_values():
    schema = json.loads((ROOT / 'charts/pacer/values.schema.json').read_text())
    rows = []
    stack = []          # (indent, key)
    comments = []
    for line in (ROOT / 'charts/pacer/values.yaml').read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith('#'):
            comments.append(stripped.lstrip('#').strip())
            continue
        if not stripped:
            comments = []
            continue
        m = KEY.match(line)
        if not m or stripped.startswith('- '):
            continue
        indent = len(m.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        value, trailing = split_comment(m.group(3))
        path = [k for _, k in stack] + [m.group(2)]
        meaning = ' '.join(comments + ([trailing] if trailing else []))
        rows.append(('.'.join(path), schema_type(schema, path), value, meaning))
        if not value:
            stack.append((indent, m.group(2)))
        comments = []
    page = ['# Chart values reference', '',
            '*Reference, generated from the chart (`test/docs/reference.py`: `charts/pacer/values.yaml`, its comments, and '
            '`values.schema.json`, which `helm install` checks values against).* Set them with `--set key=value` or '
            '`-f my-values.yaml`; [installing.md](../installing.md) gives the install for bare metal.', '',
            '| value | type | default | meaning |', '|---|---|---|---|']
    page += [f'| `{k}` | {t} | {("`" + cell(v) + "`") if v else ""} | {cell(d)} |' for k, t, v, d in rows]
    return '\n'.join(page) + '\n'


def main():
    check = '--check' in sys.argv
    stale = []
    for name, text in (('resources.md', resources()), ('chart-values.md', chart_values())):
        path = PAGES / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            PAGES.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print('docs/reference/' + ', docs/reference/'.join(stale) + ' differ from the code: run test/docs/reference.py and commit')
        return 1
    print('reference: resources.md and chart-values.md ' + ('match the code' if check else 'written'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
