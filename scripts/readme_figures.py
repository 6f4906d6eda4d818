#!/usr/bin/env python3
r"""Reruns the commands whose output README.md and the documentation site (docs/**/*.md) quote
and reports every quoted figure that differs from what the command prints now. Run by hand
before landing (not in CI):

  python3 scripts/readme_figures.py --skip-slow      # every quick command (a few minutes)
  python3 scripts/readme_figures.py --list           # the marked commands, with their cost
  python3 scripts/readme_figures.py --only baselines # the markers whose command matches
  python3 scripts/readme_figures.py --file docs/results/h200.md  # the markers of one page
  python3 scripts/readme_figures.py --update         # rewrite the figures that moved (re-baseline)

Exit status 0 when every figure matches, 1 when one differs or a command failed, 2 for a
malformed marker or bad options. Standard library only.

Markers are HTML comments in README.md and in every page under docs/ (invisible on GitHub and
on the built site), each placed right before the text it checks: a fenced code block, a table or
a paragraph (up to the next blank line). A figure that moves from the README into a page keeps
its marker, and the check follows it there.

  <!-- figures: CMD -->
  <!-- figures (~40 s): CMD -->
  <!-- figures (slow, ~25 min): CMD -->

CMD runs with bash in a fresh temporary directory that links every top-level entry of the
repository (so `./build/tilevolve`, `data/...` work as written and files a command writes, e.g.
its measurement cache or `--out runs/X`, start fresh), with build/ first on the PATH (so plain
`tilevolve` works). Markers with the same CMD share one run, in whichever files they are. `(...)` holds the estimated cost,
and `slow` for the ones --skip-slow leaves out.

A marker without a body before a code block compares the block line by line: each quoted line
is matched, in order, to the next output line with the same words (numbers aside; the output
line may go on, for quoted lines with columns cut), and their numbers are compared. A marker
with a body checks the figures its body names, one check a line:

  README PATTERN <- OUTPUT PATTERN

`#` is a number that is compared (`#3` in an output pattern: the one compared with the README
pattern's third `#`, for columns in another order), `*` a number that is not, `...` any text,
`\#` and `\*` the characters themselves, and whitespace any whitespace (a line break of the
README too). Checks are matched in order: each README pattern from where the previous one ended
in the text after the marker, each output pattern from where the previous one ended in the
command's output. The two sides of a check have as many `#`. Where one figure has more decimals
than the other, they match within half a unit of the less precise one's last digit (a README may
quote --json's 96.95 where the table prints 96.9); thousands separators do not matter. Markers
one after the other check the same text.
"""

import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A number: digits with optional thousands separators, decimals and a sign; not inside a word
# (M16, w4, llama3, 70b are words), but each part of 64x128x64 is one, as are 1.22x and 97.3%.
NUMBER = re.compile(r"(?:(?<![\w.)])[-+−])?(?<![\d.,])\d+(?:,\d{3})*(?:\.\d+)?"
                    r"(?!\d|\.\d|,\d{3})")


def numbers(text):
    """The numbers of a text as (start, end, token), words like M16, w4 or 70b excluded.

    >>> [t for _, _, t in numbers("llama3-70b-tp8:qkv:M1  16x64x128 w4 s5  1.22x  -0.2 ± 0.4, 2,003 pairs")]
    ['16', '64', '128', '1.22', '-0.2', '0.4', '2,003']
    """
    found = []
    for m in NUMBER.finditer(text):
        start, end = m.start(), m.end()
        digit_start = start + 1 if text[start] in "-+−" else start
        before = text[digit_start - 1] if digit_start > 0 else " "
        after = text[end] if end < len(text) else " "
        if before.isalnum() or before == "_":
            # 64x128: the 128 after an 'x' that follows a digit is a number too
            if not (before == "x" and digit_start >= 2 and text[digit_start - 2].isdigit()):
                continue
        if (after.isalpha() and after != "x") or after == "_":
            continue
        if after == "x" and end + 1 < len(text) and text[end + 1].isalpha():
            continue  # 8xlarge is a word
        found.append((start, end, m.group()))
    return found


def skeleton(text):
    """The words of a line with its numbers replaced by '#' and whitespace collapsed.

    >>> skeleton("per-M table (3 rules)     1.764x   93.0%")
    'per-M table (# rules) #x #%'
    """
    out, pos = [], 0
    for start, end, _ in numbers(text):
        out.append(text[pos:start])
        out.append("#")
        pos = end
    out.append(text[pos:])
    return " ".join("".join(out).split())


def value(token):
    return float(token.replace(",", "").replace("−", "-"))


def decimals(token):
    return len(token.split(".")[1]) if "." in token else 0


def same_figure(quoted, printed):
    """Whether a README figure stands for the printed one: equal, or, where one has more
    decimals, the two within half a unit of the other's last digit.

    >>> same_figure("2,003", "2003"), same_figure("96.4", "96.43"), same_figure("98.1", "98.0")
    (True, True, False)
    >>> same_figure("91.16", "91.2"), same_figure("91.14", "91.2"), same_figure("96.95", "96.9")
    (True, False, True)
    """
    q, p = value(quoted), value(printed)
    if decimals(quoted) != decimals(printed):
        # within half a unit of the less precise one's last digit, inclusive: 96.95 (from
        # --json) and 96.9 both stand for 96.949
        return abs(q - p) <= 0.5 * 10 ** -min(decimals(quoted), decimals(printed)) + 1e-9
    return abs(q - p) < 1e-12


def pattern_regex(pattern):
    """A check pattern as a regex: '#' a compared number (group g1, g2, ... in order; '#3' is
    group g3 wherever it stands), '*' a number, '...' any text, whitespace any whitespace.

    >>> bool(re.search(pattern_regex("measures # pairs"), "it measures 2,003\\npairs"))
    True
    >>> re.search(pattern_regex("gap # pts ... error # pts"), "gap +1.2 pts\\nerror 3.0 pts").groups()
    ('+1.2', '3.0')
    >>> re.search(pattern_regex("#2 of #1"), "5 of 60").group("g1")
    '60'
    """
    parts, holes = [], 0
    tokens = [t for t in re.split(r"(\\[#*]|\.\.\.|#\d*|\*|\s+)", pattern.strip()) if t]
    for k, token in enumerate(tokens):
        neighbours = tokens[max(k - 1, 0):k] + tokens[k + 1:k + 2]
        if token.isspace() and "..." in neighbours:
            parts.append(r"\s*")  # '...' may stand for nothing, the spaces around it too
        elif token in ("\\#", "\\*"):
            parts.append(re.escape(token[1]))
        elif token == "...":
            parts.append(r"[\s\S]*?")
        elif token.startswith("#"):
            holes += 1
            parts.append(f"(?P<g{token[1:] or holes}>" + NUMBER.pattern + r")")
        elif token == "*":
            parts.append(r"(?:" + NUMBER.pattern + r")")
        elif token.isspace():
            parts.append(r"\s+")
        else:
            parts.append(re.escape(token))
    return "".join(parts)


@dataclass
class Check:
    line: int  # of the check in its file
    readme: str
    output: str


@dataclass
class Marker:
    line: int  # of the marker in its file
    command: str
    name: str = "README.md"  # the file, as findings name it
    slow: bool = False
    cost: str = "?"
    checks: list = field(default_factory=list)
    target: list = field(default_factory=list)  # (line number, text) after the marker
    fenced: bool = False


HEAD = re.compile(r"<!--\s*figures\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


class MarkerError(Exception):
    pass


def parse_readme(lines, name="README.md"):
    """The figure markers of a file's lines (without newlines); name is the file as messages
    name it."""
    markers, pending, i = [], [], 0
    while i < len(lines):
        m = HEAD.match(lines[i].strip())
        if not m:
            i += 1
            continue
        marker = Marker(line=i + 1, command="", name=name)
        for attr in (m.group(1) or "").split(","):
            attr = attr.strip()
            if attr == "slow":
                marker.slow = True
            elif attr.startswith("~"):
                marker.cost = attr
            elif attr:
                raise MarkerError(f"{name}:{i + 1}: unknown marker attribute '{attr}' "
                                  "(expected 'slow' or a cost such as '~2 min')")
        rest = m.group(2)
        if rest.rstrip().endswith("-->"):
            marker.command = rest.rstrip()[:-3].strip()
            i += 1
        else:
            marker.command = rest.strip()
            i += 1
            while i < len(lines) and "-->" not in lines[i]:
                if lines[i].strip():
                    if " <- " not in lines[i]:
                        raise MarkerError(f"{name}:{i + 1}: expected a check "
                                          "'README PATTERN <- OUTPUT PATTERN'")
                    readme, output = lines[i].split(" <- ", 1)
                    counts = [len(re.findall(r"(?<!\\)#", side)) for side in (readme, output)]
                    if counts[0] != counts[1]:
                        raise MarkerError(f"{name}:{i + 1}: the two sides of the check have "
                                          f"{counts[0]} and {counts[1]} '#'")
                    try:
                        groups = [set(re.compile(pattern_regex(side)).groupindex)
                                  for side in (readme, output)]
                    except re.error as e:
                        raise MarkerError(f"{name}:{i + 1}: bad check pattern: {e}")
                    if groups[0] != groups[1]:
                        raise MarkerError(f"{name}:{i + 1}: the output pattern's '#N' must "
                                          f"number the README pattern's {counts[0]} '#' once each")
                    marker.checks.append(Check(i + 1, readme.strip(), output.strip()))
                i += 1
            if i == len(lines):
                raise MarkerError(f"{name}:{marker.line}: marker without its closing '-->'")
            i += 1
        if not marker.command:
            raise MarkerError(f"{name}:{marker.line}: marker without a command")
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i < len(lines) and HEAD.match(lines[i].strip()):
            pending.append(marker)  # the next marker's text is this one's too
            continue
        if i < len(lines) and lines[i].lstrip().startswith("```"):
            marker.fenced = True
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                marker.target.append((i + 1, lines[i]))
                i += 1
        else:
            while i < len(lines) and lines[i].strip() and not HEAD.match(lines[i].strip()):
                marker.target.append((i + 1, lines[i]))
                i += 1
        for m in pending + [marker]:
            m.target, m.fenced = marker.target, marker.fenced
            if not m.target:
                raise MarkerError(f"{name}:{m.line}: nothing follows the marker")
            if not m.checks and not m.fenced:
                raise MarkerError(f"{name}:{m.line}: a marker before prose or a table needs "
                                  "checks ('README PATTERN <- OUTPUT PATTERN' lines)")
            markers.append(m)
        pending = []
    if pending:
        raise MarkerError(f"{name}:{pending[0].line}: nothing follows the marker")
    return markers


def link_tree(workdir):
    """Links every top-level entry of the repository into workdir, except what runs write."""
    for name in os.listdir(ROOT):
        if name.startswith(".") or name in ("runs", "tilevolve-measurements.csv"):
            continue
        os.symlink(os.path.join(ROOT, name), os.path.join(workdir, name))


def run(command):
    """Runs a command as the README's reader would; returns (exit status, output, seconds)."""
    with tempfile.TemporaryDirectory(prefix="readme-figures-") as workdir:
        link_tree(workdir)
        env = dict(os.environ)
        env["PATH"] = os.path.join(ROOT, "build") + os.pathsep + env.get("PATH", "")
        env.pop("TILEVOLVE_DATA", None)
        start = time.monotonic()
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=workdir, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return done.returncode, done.stdout.decode("utf-8", "replace"), time.monotonic() - start


@dataclass
class Finding:
    line: int
    text: str
    # For --update: (column start, column end, new text) of the figure on `line`.
    edit: tuple = None


def compare_block(marker, output):
    """Findings of a quoted block against the output, line by line."""
    findings, figures = [], 0
    out_lines = output.splitlines()
    out_skeletons = [skeleton(line) for line in out_lines]
    pos = 0
    for line_no, quoted in marker.target:
        quoted_skeleton = skeleton(quoted)
        if not quoted_skeleton or quoted_skeleton == "...":
            continue
        match = next((j for j in range(pos, len(out_lines))
                      if out_skeletons[j].startswith(quoted_skeleton)), None)
        if match is None:
            near = difflib.get_close_matches(quoted_skeleton, out_skeletons, n=1, cutoff=0.6)
            hint = (f"; nearest output line: {out_lines[out_skeletons.index(near[0])].strip()!r}"
                    if near else "")
            findings.append(Finding(line_no, f"quoted line not in the output (after output line "
                                             f"{pos}): {quoted.strip()!r}{hint}"))
            continue
        pos = match + 1
        q_numbers = numbers(quoted)
        o_numbers = numbers(out_lines[match])[:len(q_numbers)]
        for (start, end, q), (_, _, o) in zip(q_numbers, o_numbers):
            figures += 1
            if not same_figure(q, o):
                findings.append(Finding(line_no, f"{q} -> {o}  in {' '.join(quoted.split())!r}",
                                        (start, end, restyled(o, q))))
    return findings, figures


def restyled(printed, quoted):
    """The printed figure written as the quoted one is: its decimals, its sign, its thousands
    separators.

    >>> restyled("2.314", "+2.43"), restyled("113168", "113,168"), restyled("-0.5", "+1.0")
    ('+2.31', '113,168', '-0.5')
    """
    v = value(printed)
    d = decimals(quoted)
    text = f"{abs(v):,.{d}f}" if "," in quoted else f"{abs(v):.{d}f}"
    if v < 0:
        text = ("−" if quoted.startswith("−") else "-") + text
    elif quoted.startswith("+"):
        text = "+" + text
    return text


def compare_checks(marker, output):
    """Findings of a marker's checks: the README figures they name against the output's."""
    findings, figures = [], 0
    text = "\n".join(t for _, t in marker.target)
    starts, offset = [], 0
    for line_no, t in marker.target:
        starts.append((offset, line_no))
        offset += len(t) + 1
    def line_of(offset):
        return max(ln for start, ln in starts if start <= offset)
    text_pos = out_pos = 0
    for check in marker.checks:
        q = re.compile(pattern_regex(check.readme)).search(text, text_pos)
        if not q:
            findings.append(Finding(check.line, f"check's README pattern not found in the text "
                                                f"after the marker: {check.readme!r}"))
            continue
        text_pos = q.end()
        o = re.compile(pattern_regex(check.output)).search(output, out_pos)
        if not o:
            findings.append(Finding(line_of(q.start()), f"not in the output: {check.output!r} "
                                                        f"(for {q.group().strip()!r})"))
            continue
        out_pos = o.end()
        for k in range(1, (q.re.groups or 0) + 1):
            figures += 1
            quoted, printed = q.group(f"g{k}"), o.group(f"g{k}")
            if not same_figure(quoted, printed):
                at = q.start(f"g{k}")
                start = max(s for s, ln in starts if s <= at)
                findings.append(Finding(line_of(at),
                                        f"{quoted} -> {printed}  in "
                                        f"{' '.join(q.group().split())!r}",
                                        (at - start, q.end(f"g{k}") - start,
                                         restyled(printed, quoted))))
    return findings, figures


def marked_files(root):
    """README.md and every Markdown page under docs/ of root, as (path, name)."""
    files = [os.path.join(root, "README.md")]
    for base, dirs, names in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        files += [os.path.join(base, n) for n in sorted(names) if n.endswith(".md")]
    return [(f, os.path.relpath(f, root)) for f in files if os.path.isfile(f)]


def where(markers):
    """'README.md:12,40 docs/x.md:7': the files and lines of markers, each file once."""
    by_file = {}
    for m in markers:
        by_file.setdefault(m.name, []).append(m.line)
    return " ".join(f"{name}:{','.join(map(str, lines))}" for name, lines in by_file.items())


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", "--readme", dest="files", action="append", metavar="FILE",
                        help="check only this Markdown file (repeatable); default: README.md "
                             "and every page under docs/ of --root")
    parser.add_argument("--root", default=ROOT,
                        help="the tree whose README.md and docs/ are checked (default: this "
                             "repository); the commands still run in this repository")
    parser.add_argument("--only", metavar="PATTERN",
                        help="only the markers whose command matches this regular expression")
    parser.add_argument("--skip-slow", action="store_true", help="leave out markers marked slow")
    parser.add_argument("--update", action="store_true",
                        help="write every figure that differs as the command prints it now, in "
                             "the quoted figure's style (decimals, sign, separators); quoted lines "
                             "the output lacks are still reported, for a person to mend")
    parser.add_argument("--list", action="store_true",
                        help="list the marked commands with their estimated cost; run nothing")
    args = parser.parse_args(argv)
    if args.files:
        files = [(f, os.path.basename(f)) for f in args.files]
    else:
        files = marked_files(args.root)
    markers = []
    try:
        for path, name in files:
            with open(path, encoding="utf-8") as f:
                markers += parse_readme(f.read().splitlines(), name)
    except MarkerError as e:
        print(f"readme_figures: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"readme_figures: {e}", file=sys.stderr)
        return 2
    if args.only:
        markers = [m for m in markers if re.search(args.only, m.command)]
    if args.skip_slow:
        markers = [m for m in markers if not m.slow]
    commands = list(dict.fromkeys(m.command for m in markers))
    if args.list:
        for command in commands:
            of = [m for m in markers if m.command == command]
            slow = any(m.slow for m in of)
            cost = next((m.cost for m in of if m.cost != "?"), "?")
            print(f"{where(of)}  [{'slow, ' if slow else ''}{cost}]  {command}")
        return 0
    failed = 0
    paths = {name: path for path, name in files}
    edits = {}  # (name, line) -> [(start, end, text)]
    for command in commands:
        print(f"$ {command}", flush=True)
        status, output, seconds = run(command)
        if status != 0:
            failed += 1
            tail = "\n".join(output.splitlines()[-10:])
            print(f"  FAILED: exit status {status} after {seconds:.1f} s; last lines:\n{tail}")
            continue
        for marker in (m for m in markers if m.command == command):
            compare = compare_checks if marker.checks else compare_block
            findings, figures = compare(marker, output)
            verdict = f"{len(findings)} differ" if findings else "all match"
            print(f"  {marker.name}:{marker.line}: {figures} figures, {verdict} ({seconds:.1f} s)")
            for finding in findings:
                print(f"    {marker.name}:{finding.line}: {finding.text}")
                if args.update and finding.edit:
                    edits.setdefault((marker.name, finding.line), []).append(finding.edit)
            failed += bool(findings)
    if args.update and edits:
        updated = 0
        for name in {n for n, _ in edits}:
            with open(paths[name], encoding="utf-8") as f:
                lines = f.read().split("\n")
            for (n, line_no), changes in edits.items():
                if n != name:
                    continue
                text = lines[line_no - 1]
                for start, end, new in sorted(set(changes), reverse=True):
                    text = text[:start] + new + text[end:]
                    updated += 1
                lines[line_no - 1] = text
            with open(paths[name], "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
        print(f"readme_figures: --update rewrote {updated} figures; run again to check")
    print(f"readme_figures: {len(commands)} commands in {len(files)} files, "
          f"{'every figure matches' if not failed else f'{failed} markers or commands failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
