#!/usr/bin/env python3
"""Extracts the operations guildctl's `github` subcommand uses from GitHub's REST API
description into tests/data/github-openapi-subset.json.

Usage: github-openapi-extract.py api.github.com.json > github-openapi-subset.json

The input is GitHub's bundled description of api.github.com (github/rest-api-description,
descriptions/api.github.com/api.github.com.json, MIT; also republished unchanged but for
`x-octokit` keys in the npm package @octokit/openapi, generated/api.github.com.json).
Operations are copied as they are, with every component they reference; `examples` and
vendor extensions are left out to keep the file small.
"""
import json
import sys

OPERATIONS = [
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "get"),
    ("/repos/{owner}/{repo}/issues/{issue_number}/comments", "post"),
    ("/repos/{owner}/{repo}/issues/comments/{comment_id}", "patch"),
    ("/repos/{owner}/{repo}/issues", "get"),
    ("/repos/{owner}/{repo}/issues", "post"),
    ("/repos/{owner}/{repo}/issues/{issue_number}", "patch"),
    ("/repos/{owner}/{repo}/commits/{commit_sha}/pulls", "get"),
    ("/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs", "get"),
    ("/repos/{owner}/{repo}/pulls/{pull_number}/files", "get"),
    ("/user", "get"),
    ("/orgs/{org}/teams/{team_slug}/members", "get"),
]


def strip(node):
    """Drops examples and vendor extensions, recursively."""
    if isinstance(node, dict):
        return {
            k: strip(v)
            for k, v in node.items()
            if k not in ("examples", "example") and not k.startswith("x-")
        }
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str):
            out.add(r)
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def main():
    spec = json.load(open(sys.argv[1]))
    paths = {}
    for path, method in OPERATIONS:
        paths.setdefault(path, {})[method] = strip(spec["paths"][path][method])
    components = {}
    todo, done = set(), set()
    refs(paths, todo)
    while todo:
        r = todo.pop()
        if r in done:
            continue
        done.add(r)
        _, _, kind, name = r.split("/", 3)
        value = strip(spec["components"][kind][name])
        components.setdefault(kind, {})[name] = value
        refs(value, todo)
    out = {
        "openapi": spec["openapi"],
        "info": {
            "title": spec["info"]["title"],
            "version": spec["info"]["version"],
            "license": spec["info"].get("license"),
            "description": "A subset of GitHub's REST API description "
            "(github/rest-api-description, MIT): only the operations guildctl uses, "
            "extracted by tests/data/github-openapi-extract.py.",
        },
        "paths": paths,
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
