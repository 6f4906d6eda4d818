#!/usr/bin/env python3
"""Checks the documentation beyond what `mkdocs build --strict` checks. Standard library only.

  python3 scripts/docs_check.py --nav        # every page under docs/ is in mkdocs.yml's nav
  python3 scripts/docs_check.py SITE_DIR     # that, and every link of the built site and of
                                             # README.md reaches a page and an anchor that exist

mkdocs 1.4 (Debian 12's) fails a strict build on a link to a missing page, but not on a link to
a missing #anchor, and only reports a page left out of the navigation. This script fails on
both: a page not in `nav:`, a link `page.md#anchor` (or `#anchor`) whose anchor the built page
does not have, and a link of README.md to a file of the repository that does not exist (README
links into docs/ are checked against the built pages' anchors too). scripts/test.sh runs it
after `mkdocs build --strict` in its docs phase; tests/docs_test.cpp runs `--nav`.
Exit status 0 when all is well, 1 with one line per finding.
"""

import html.parser
import os
import re
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")


def nav_pages(config_text):
    """The .md paths the nav of mkdocs.yml names (its entries `- Title: path.md`, `- path.md`)."""
    pages, in_nav = [], False
    for line in config_text.splitlines():
        if re.match(r"^nav\s*:", line):
            in_nav = True
            continue
        if in_nav and line and not line[0].isspace() and not line.startswith("#"):
            break  # the next top-level key
        m = re.match(r"^\s*-\s*(?:[^:]+:\s*)?(\S+\.md)\s*$", line) if in_nav else None
        if m:
            pages.append(m.group(1))
    return pages


def doc_pages():
    out = []
    for base, _, names in os.walk(DOCS):
        out += [os.path.relpath(os.path.join(base, n), DOCS) for n in names if n.endswith(".md")]
    return sorted(out)


def check_nav():
    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        nav = nav_pages(f.read())
    findings = []
    if not nav:
        return ["mkdocs.yml: no nav entries found"]
    for page in doc_pages():
        if page not in nav:
            findings.append(f"docs/{page}: not in the nav of mkdocs.yml (add it there)")
    for page in nav:
        if not os.path.isfile(os.path.join(DOCS, page)):
            findings.append(f"mkdocs.yml: the nav names docs/{page}, which does not exist")
    seen = set()
    for page in nav:
        if page in seen:
            findings.append(f"mkdocs.yml: docs/{page} is in the nav twice")
        seen.add(page)
    return findings


class Page(html.parser.HTMLParser):
    """The ids and the links (href) of one HTML page."""

    def __init__(self):
        super().__init__()
        self.ids, self.links = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])


def read_page(path, cache):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def external(href):
    return bool(re.match(r"^[a-z][a-z0-9+.-]*:", href)) or href.startswith("//")


def check_site(site):
    findings, cache = [], {}
    for base, _, names in os.walk(site):
        for name in names:
            if not name.endswith(".html") or name == "404.html":
                continue
            path = os.path.join(base, name)
            rel = os.path.relpath(path, site)
            if rel.startswith("search" + os.sep) or rel.startswith("assets" + os.sep):
                continue
            for href in read_page(path, cache).links:
                if external(href) or not href:
                    continue
                target, _, fragment = href.partition("#")
                target = urllib.parse.unquote(target)
                dest = os.path.normpath(os.path.join(base, target)) if target else path
                if target.endswith("/") or os.path.isdir(dest):
                    dest = os.path.join(dest, "index.html")
                if not os.path.exists(dest):
                    findings.append(f"{rel}: link to {href}: no such file in the site")
                    continue
                if fragment and dest.endswith(".html"):
                    if urllib.parse.unquote(fragment) not in read_page(dest, cache).ids:
                        findings.append(f"{rel}: link to {href}: the page has no anchor "
                                        f"'{fragment}'")
    return findings


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def check_readme(site):
    findings, cache = [], {}
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    for href in LINK.findall(text):
        if external(href) or href.startswith("#"):
            continue
        target, _, fragment = href.partition("#")
        path = os.path.join(ROOT, target)
        if not os.path.exists(path):
            findings.append(f"README.md: link to {href}: no such file")
            continue
        if fragment and site and target.startswith("docs/") and target.endswith(".md"):
            built = os.path.join(site, target[len("docs/"):-len(".md")] + ".html")
            if os.path.exists(built) and fragment not in read_page(built, cache).ids:
                findings.append(f"README.md: link to {href}: the page has no anchor '{fragment}'")
    return findings


def main(argv):
    if argv == ["--nav"]:
        findings = check_nav()
    elif len(argv) == 1 and not argv[0].startswith("-"):
        if not os.path.isfile(os.path.join(argv[0], "index.html")):
            print(f"docs_check: {argv[0]} is not a built site (no index.html): run mkdocs build "
                  "first", file=sys.stderr)
            return 2
        findings = check_nav() + check_site(argv[0]) + check_readme(argv[0])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for line in findings:
        print(f"docs_check: {line}")
    if findings:
        print(f"docs_check: {len(findings)} problems")
        return 1
    print("docs_check: every page is in the nav, every link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
