"""Read the YAML catalog, validate it, resolve references, and report every problem at once.

The only I/O of the content layer. A problem is a :class:`Problem` naming the file, the line,
the field and what was expected; :func:`load_catalog` raises :class:`ContentErrors` with all
of them, never a stack trace.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
import functools
import os
import re
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from generator.content.catalog import Catalog
from generator.content.schema import (
    GIB,
    ApiPrice,
    ArchitectureSupport,
    Assumptions,
    Calibration,
    CliProgram,
    CloudOffer,
    EngineProfile,
    FileSize,
    Hardware,
    HardwareKind,
    KVDtype,
    MemoryLog,
    Model,
    Name,
    Provider,
    QualityLabel,
    QualityMeasurement,
    QuantFormat,
    RigsFile,
    Source,
    Throughput,
    Wanted,
    name_key,
)
from generator.content.types import Frozen

Loc = tuple[str | int, ...]


@dataclasses.dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in the content: where it is and what was expected."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        field = f" {self.field}:" if self.field else ""
        return f"{where}:{field} {self.message}"


class ContentErrors(Exception):
    """Raised when the catalog has problems; holds every one of them."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = sorted(set(problems))
        super().__init__("\n".join(map(str, self.problems)))


class FormatsFile(Frozen):
    weights: tuple[QuantFormat, ...]
    kv_cache: tuple[KVDtype, ...]
    sources: tuple[str, ...] = ()


class EnginesFile(Frozen):
    engines: tuple[EngineProfile, ...]


class CliFile(Frozen):
    """cli.yaml: the launch programs' command lines, as their parsers read them."""

    programs: tuple[CliProgram, ...]


class CloudFile(Frozen):
    offers: tuple[CloudOffer, ...]
    # Where to rent from each provider (its pricing page), by the name its offers use.
    providers: tuple[Provider, ...] = ()
    sources: tuple[str, ...] = ()


class ApiFile(Frozen):
    prices: tuple[ApiPrice, ...]
    sources: tuple[str, ...] = ()


class MeasurementsFile(Frozen):
    throughput: tuple[Throughput, ...] = ()
    file_sizes: tuple[FileSize, ...] = ()
    memory: tuple[MemoryLog, ...] = ()
    sources: tuple[str, ...] = ()


class QualityFile(Frozen):
    """quality.yaml: measured quality loss per weight format, and the words for ranges of loss."""

    labels: tuple[QualityLabel, ...]
    measurements: tuple[QualityMeasurement, ...] = ()
    sources: tuple[Source, ...] = ()


class WantedFile(Frozen):
    """wanted.yaml: models and accelerators people ask for that the catalog does not have yet, and why."""

    wanted: tuple[Wanted, ...]
    sources: tuple[Source, ...] = ()


class ArchitecturesFile(Frozen):
    """architectures.yaml: which engines run the models of each listed config.json model type."""

    architectures: tuple[ArchitectureSupport, ...]


class AliasesFile(Frozen):
    """search-aliases.yaml: for a name that appears (as whole words) in an organization, vendor, family or
    accelerator name, other names people type."""

    aliases: dict[Name, tuple[Name, ...]]
    sources: tuple[Source, ...] = ()


# Markdown pages every language must have (content/pages/<lang>/<name>.md).
REQUIRED_PAGES = ("methodology",)
# The languages of the site: content/pages/ must have a folder for each.
PAGE_LANGS = ("en", "fr", "zh")


# libyaml's parser when PyYAML has it (every wheel does): the catalog parses ~8× faster.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _UniqueKeyLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that refuses duplicate mapping keys instead of keeping the last one."""


def _no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value (a name), not a list or a mapping", key_node.start_mark
            )
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _no_duplicates,
)


def _timestamp(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """YAML dates, with an impossible one (2022-13-45) reported at its line instead of crashing."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError) as exc:
        raise yaml.constructor.ConstructorError(
            None, None, f"invalid date {node.value!r}: {exc}", node.start_mark
        ) from None


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)

# No catalog number has more digits than this; Python refuses to read integers past 4,300 digits anyway.
MAX_INT_DIGITS = 40


_LEADING_ZEROS = re.compile(r"^([+-]?)[0_]+(?=[0-9])")


def _int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """YAML integers, with one too long to be a catalog value reported at its line instead of crashing.

    YAML 1.1 (PyYAML's dialect) reads ``040`` as octal 32 and ``1:30`` as 90 (base 60), where a person
    meant 40 and a time; both are refused with what to write instead (YAML 1.2 and JSON agree with us).
    """
    digits = str(node.value).replace("_", "").lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1] not in "xXoObB":
        plain = _LEADING_ZEROS.sub(r"\1", str(node.value))
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"integer {node.value} has a leading zero, which YAML 1.1 reads as octal "
            f"({yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)}): "
            f"write {plain} or quote it",
            node.start_mark,
        )
    if ":" in digits:
        raise yaml.constructor.ConstructorError(
            None, None, f"{node.value} reads as a base-60 number in YAML 1.1: quote it", node.start_mark
        )
    if len(str(node.value).replace("_", "").lstrip("+-")) > MAX_INT_DIGITS + 2:  # 0x, 0o, 0b
        raise yaml.constructor.ConstructorError(
            None, None, f"integer with more than {MAX_INT_DIGITS} digits ({str(node.value)[:20]}...)", node.start_mark
        )
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _int)

# Catalog files are a few hundred KB; the limits keep a hostile file from exhausting memory.
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 32


def _check_tree(root: yaml.Node) -> None:
    """Refuse anchors/aliases (a few nested aliases expand to billions of values) and deep nesting."""
    seen: dict[int, yaml.Node] = {}
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "YAML anchors and aliases (&name, *name) are not allowed; write the value out where it is used "
                f"(this value is anchored on line {node.start_mark.line + 1})",
                node.start_mark,
            )
        seen[id(node)] = node
        if depth > MAX_DEPTH:
            raise yaml.constructor.ConstructorError(
                None, None, f"values nested more than {MAX_DEPTH} levels deep", node.start_mark
            )
        if isinstance(node, yaml.MappingNode):
            stack += [(n, depth + 1) for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(n, depth + 1) for n in node.value]


def _load_yaml(text: str) -> Any:
    """Parse ``text`` with the checked loader: unique keys, no aliases, bounded depth, valid dates."""
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_tree(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _lines(node: yaml.Node, path: Loc = ()) -> Iterator[tuple[Loc, int]]:
    """Yield (path, 1-based line) for every value in a composed YAML tree."""
    yield path, node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            yield (*path, key), key_node.start_mark.line + 1
            for sub, line in _lines(value_node, (*path, key)):
                if sub != (*path, key):
                    yield sub, line
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _lines(item, (*path, i))


def _tuples(value: Any) -> Any:
    """YAML lists become tuples, so frozen models can take them in strict mode."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


def field_name(loc: Loc) -> str:
    """``('offers', 3, 'usd_per_hour')`` -> ``offers[3].usd_per_hour``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _expected(err: Mapping[str, Any], model: type[BaseModel], loc: Loc) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        owner = _owner(model, loc[:-1])
        allowed = sorted(owner.model_fields) if owner else []
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"unknown field{hint} (allowed: {', '.join(allowed)})"
    got = err.get("input")
    shown = repr(got) if not isinstance(got, dict | tuple) else type(got).__name__
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    return f"{msg[0].lower()}{msg[1:]} (got {shown})"


def _owner(model: type[BaseModel], loc: Loc) -> type[BaseModel] | None:
    """The pydantic model that holds the field at ``loc`` (for listing allowed keys)."""
    current: Any = model
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(current, "model_fields", {}).get(part)
        if field is None:
            return None
        current = _model_in(field.annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _model_in(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


T = TypeVar("T", bound=BaseModel)
V = TypeVar("V")
# A record kept one per file, named by its slug.
Entry = TypeVar("Entry", Model, Hardware)


@dataclasses.dataclass(frozen=True)
class Parsed(Generic[V]):
    """A validated record and its source text, whose lines are mapped only when a problem is reported."""

    value: V
    file: str
    text: str

    @functools.cached_property
    def lines(self) -> Mapping[Loc, int]:
        node = yaml.compose(self.text, Loader=_UniqueKeyLoader)
        return dict(_lines(node)) if node is not None else {}

    def line(self, loc: Loc) -> int:
        """Line of the deepest part of ``loc`` present in the file."""
        for end in range(len(loc), -1, -1):
            if loc[:end] in self.lines:
                return self.lines[loc[:end]]
        return 0


class NotPlainFile(OSError):
    """A catalog path that is not a regular file inside the catalog (a link, pipe, device, folder)."""


def _kind(mode: int) -> str:
    """What a file mode says a path is, in words."""
    for test, what in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "not a regular file"


def read_plain(path: Path, root: Path | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most MAX_FILE_BYTES of them.

    Inside the catalog ``root`` no part of the path may be a symbolic link: a link in a pull request
    could publish any file of the machine that builds it. Pipes, devices and sockets are refused
    everywhere without being read (a FIFO would hang the build, /dev/zero fill its memory).
    Raises NotPlainFile (or OSError) with what was found, ValueError when the file is too large.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if root is not None and path.is_relative_to(root):
        current = root
        for part in path.relative_to(root).parts:
            current = current / part
            mode = os.lstat(current).st_mode
            if stat.S_ISLNK(mode):
                where = "" if current == path else f" (its folder {current.relative_to(root)}/ is one)"
                raise NotPlainFile(f"a symbolic link{where}: the catalog reads only regular files inside {root.name}/")
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotPlainFile(f"{_kind(mode)}: the catalog reads only regular files")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES and (chunk := os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_FILE_BYTES:
        raise ValueError(f"file is larger than {MAX_FILE_BYTES // 2**20} MiB")
    return b"".join(chunks)


def read_text(path: Path, rel: str, problems: list[Problem], root: Path | None = None) -> str | None:
    """A content file's UTF-8 text, or None with a problem (not a regular file inside ``root``,
    unreadable, too large, not UTF-8)."""
    try:
        return read_plain(path, root).decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(rel, 0, "", f"not UTF-8 text (byte {exc.start}: {exc.reason})"))
    except NotPlainFile as exc:
        problems.append(Problem(rel, 0, "", f"expected a regular file, found {exc}"))
    except ValueError as exc:
        problems.append(Problem(rel, 0, "", str(exc)))
    except OSError as exc:
        problems.append(Problem(rel, 0, "", f"cannot read file: {exc.strerror or exc}"))
    return None


def parse_file(path: Path, model: type[T], root: Path, problems: list[Problem]) -> Parsed[T] | None:
    """Validate one YAML file against ``model``; append problems and return None on failure."""
    rel = str(path.relative_to(root.parent) if path.is_relative_to(root.parent) else path)
    text = read_text(path, rel, problems, root)
    if text is None:
        return None
    try:
        data = _load_yaml(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 0
        what = " ".join(str(x) for x in (exc.context, exc.problem) if x)
        problems.append(Problem(rel, line, "", f"invalid YAML: {what}"))
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(rel, 0, "", f"invalid YAML: {exc}"))
        return None
    except (ValueError, TypeError, RecursionError) as exc:  # a value PyYAML's constructors cannot build
        problems.append(Problem(rel, 0, "", f"invalid YAML value: {exc}"))
        return None
    if not isinstance(data, dict):
        problems.append(
            Problem(rel, 1, "", f"expected a mapping of fields at the top level, got {type(data).__name__}")
        )
        return None
    try:
        value = model.model_validate(_tuples(data))
    except ValidationError as exc:
        parsed = Parsed(None, rel, text)
        for err in exc.errors():
            loc: Loc = tuple(err["loc"])
            problems.append(Problem(rel, parsed.line(loc), field_name(loc), _expected(err, model, loc)))
        return None
    return Parsed(value, rel, text)


def _yaml_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    # Links, pipes and devices are listed too, so that reading them reports them rather than skipping them.
    return sorted(p for p in folder.iterdir() if p.suffix in {".yaml", ".yml"} and (p.is_symlink() or not p.is_dir()))


def _one(root: Path, name: str, model: type[T], problems: list[Problem], required: bool = True) -> Parsed[T] | None:
    path = root / name
    if not os.path.lexists(path):
        if required:
            problems.append(Problem(f"{root.name}/{name}", 0, "", "required file is missing"))
        return None
    return parse_file(path, model, root, problems)


def _entries(
    root: Path, folder: str, model: type[Entry], problems: list[Problem], broken: set[str]
) -> list[Parsed[Entry]]:
    """Parse one-record-per-file folders; the slug must equal the file name.

    Files that fail go into ``broken`` so references to them are not reported a second time.
    """
    out: list[Parsed[Entry]] = []
    for path in _yaml_files(root / folder):
        parsed = parse_file(path, model, root, problems)
        if parsed is None:
            broken.add(path.stem)
            continue
        if parsed.value.slug != path.stem:
            problems.append(
                Problem(
                    parsed.file,
                    parsed.line(("slug",)),
                    "slug",
                    f"slug {parsed.value.slug!r} must equal the file name {path.stem!r}",
                )
            )
        out.append(parsed)
    return out


def _unique(
    items: list[Parsed[Entry]], key: Callable[[Entry], str], field: str, what: str, problems: list[Problem]
) -> dict[str, Entry]:
    seen: dict[str, Parsed[Entry]] = {}
    for item in items:
        k = key(item.value)
        if k in seen:
            problems.append(
                Problem(item.file, item.line((field,)), field, f"duplicate {what} {k!r} (also in {seen[k].file})")
            )
        else:
            seen[k] = item
    return {k: v.value for k, v in seen.items()}


def _unique_names(items: list[Parsed[Entry]], what: str, problems: list[Problem]) -> None:
    """Two entries of one kind may not share a name as a reader sees it (NFKC, case, spaces aside)."""
    seen: dict[str, Parsed[Entry]] = {}
    for item in items:
        key = name_key(item.value.name)
        if key in seen:
            message = f"{what} name {item.value.name!r} is the name of {seen[key].file} ({seen[key].value.name!r})"
            problems.append(Problem(item.file, item.line(("name",)), "name", message))
        else:
            seen[key] = item


def _check_same_chip(
    entries: list[Parsed[Hardware]], hardware: Mapping[str, Hardware], problems: list[Problem]
) -> None:
    """``same_chip_as`` names another entry that names no other in turn, with the same vendor, platform,
    bandwidth and peaks."""
    for parsed in entries:
        hw = parsed.value
        if hw.same_chip_as is None:
            continue
        loc: Loc = ("same_chip_as",)
        other = hardware.get(hw.same_chip_as)
        if other is None:
            _check_ref(parsed, loc, hw.same_chip_as, hardware, "hardware", problems)
            continue
        same = ("vendor", "platform", "bandwidth_gbps", "tflops_bf16", "tflops_fp16", "tflops_fp8", "chips")
        differ = [f for f in same if getattr(hw, f) != getattr(other, f)]
        if other.slug == hw.slug:
            message = "an entry cannot name itself"
        elif other.same_chip_as is not None:
            message = f"{other.slug} names {other.same_chip_as} in turn: name that entry"
        elif differ:
            message = f"{other.slug} differs in {', '.join(differ)}: not the same chip"
        else:
            continue
        problems.append(Problem(parsed.file, parsed.line(loc), field_name(loc), message))


def _check_backends(
    parsed: Parsed[EnginesFile],
    formats: Mapping[str, QuantFormat],
    kv_dtypes: Mapping[str, KVDtype],
    hardware: Mapping[str, Hardware],
    problems: list[Problem],
) -> None:
    """Each backend's formats are formats its engine loads, its KV caches ones the engine has and its
    accelerators the catalog's; some engine runs on every accelerator (a page needs a setup that starts)."""
    for i, engine in enumerate(parsed.value.engines):
        loads = {name for name, f in formats.items() if f.family in engine.formats}
        kvs = {name for name, k in kv_dtypes.items() if engine.name in k.engines}
        for j, backend in enumerate(engine.backends):
            for k, name in enumerate(backend.formats):
                loc: Loc = ("engines", i, "backends", j, "formats", k)
                _check_ref(parsed, loc, name, loads, f"format for {engine.name}", problems)
            for k, name in enumerate(backend.kv_dtypes):
                loc = ("engines", i, "backends", j, "kv_dtypes", k)
                _check_ref(parsed, loc, name, kvs, f"KV cache for {engine.name}", problems)
            for field in ("hardware", "excluded"):
                for k, slug in enumerate(getattr(backend, field)):
                    _check_ref(parsed, ("engines", i, "backends", j, field, k), slug, hardware, "hardware", problems)
    for hw in hardware.values():
        if not any(e.backends_on(hw) for e in parsed.value.engines):
            message = f"no engine runs on {hw.slug} (platform {hw.platform!r})"
            problems.append(Problem(parsed.file, 0, "backends", message))


def _check_kin(parsed: Parsed[EnginesFile], problems: list[Problem]) -> None:
    """An engine's ``speed_from`` names another engine of the file that takes no one's speeds itself."""
    engines = {e.name: e for e in parsed.value.engines}
    for i, engine in enumerate(parsed.value.engines):
        kin = engine.speed_from
        if kin is None:
            continue
        loc: Loc = ("engines", i, "speed_from", "engine")
        if kin.engine == engine.name or kin.engine not in engines or engines[kin.engine].speed_from is not None:
            message = f"{kin.engine!r} must be another engine of this file that has fits of its own"
            problems.append(Problem(parsed.file, parsed.line(loc), field_name(loc), message))


def _check_ref(
    parsed: Parsed[Any], loc: Loc, value: str | None, known: Collection[str], what: str, problems: list[Problem]
) -> None:
    if value is None or value in known:
        return
    close = difflib.get_close_matches(value, list(known), n=3)
    hint = f"; closest: {', '.join(close)}" if close else ""
    problems.append(Problem(parsed.file, parsed.line(loc), field_name(loc), f"unknown {what} {value!r}{hint}"))


def _pages(root: Path, problems: list[Problem]) -> dict[str, dict[str, str]]:
    """Markdown pages by language; every language needs every required page."""
    pages: dict[str, dict[str, str]] = {}
    for lang in PAGE_LANGS:
        pages[lang] = {}
        for name in REQUIRED_PAGES:
            rel = f"{root.name}/pages/{lang}/{name}.md"
            path = root / "pages" / lang / f"{name}.md"
            if not os.path.lexists(path):
                problems.append(Problem(rel, 0, "", "required page is missing"))
                continue
            text = read_text(path, rel, problems, root)
            if text is not None:
                pages[lang][name] = text
    return pages


def _measurement_files(root: Path, problems: list[Problem]) -> list[Parsed[MeasurementsFile]]:
    """Every file under measurements/ that parses."""
    parsed = (parse_file(path, MeasurementsFile, root, problems) for path in _yaml_files(root / "measurements"))
    return [p for p in parsed if p is not None]


def _formats(
    formats_p: Parsed[FormatsFile] | None, problems: list[Problem]
) -> tuple[dict[str, QuantFormat], dict[str, KVDtype]]:
    """Weight formats and KV cache types by name; a name or alias used twice (any case) is a problem."""
    formats: dict[str, QuantFormat] = {}
    if formats_p is None:
        return formats, {}
    for i, fmt in enumerate(formats_p.value.weights):
        for name in (fmt.name, *fmt.aliases):
            if name.lower() in {f.lower() for f in formats}:
                problems.append(
                    Problem(
                        formats_p.file,
                        formats_p.line(("weights", i, "name")),
                        f"weights[{i}].name",
                        f"duplicate format name {name!r}",
                    )
                )
        formats[fmt.name] = fmt
    return formats, {k.name: k for k in formats_p.value.kv_cache}


def _check_prices(
    cloud_p: Parsed[CloudFile] | None,
    api_p: Parsed[ApiFile] | None,
    known_hardware: Collection[str],
    known_models: Collection[str],
    problems: list[Problem],
) -> None:
    """Cloud offers must name known hardware; API prices, known models."""
    if cloud_p:
        for i, offer in enumerate(cloud_p.value.offers):
            _check_ref(cloud_p, ("offers", i, "hardware"), offer.hardware, known_hardware, "hardware", problems)
        named = {o.provider for o in cloud_p.value.offers}
        seen: set[str] = set()
        for i, provider in enumerate(cloud_p.value.providers):
            loc: Loc = ("providers", i, "name")
            if name_key(provider.name) in seen:
                problems.append(Problem(cloud_p.file, cloud_p.line(loc), field_name(loc), "duplicate provider"))
            seen.add(name_key(provider.name))
            _check_ref(cloud_p, loc, provider.name, named, "provider (no offer names it)", problems)
    if api_p:
        for i, price in enumerate(api_p.value.prices):
            _check_ref(api_p, ("prices", i, "model"), price.model, known_models, "model", problems)


def _check_throughput(
    mf: Parsed[MeasurementsFile],
    seen_rows: dict[tuple[object, ...], str],
    known_models: Collection[str],
    known_hardware: Collection[str],
    formats: Collection[str],
    problems: list[Problem],
) -> None:
    """Throughput rows: references resolve, no row repeats one seen before (it would count twice in the fit)."""
    for i, row in enumerate(mf.value.throughput):
        key = (row.hardware, row.model or row.model_ref, row.quant, row.test, row.context, row.tok_s, row.source)
        if key in seen_rows:
            problems.append(
                Problem(
                    mf.file,
                    mf.line(("throughput", i)),
                    f"throughput[{i}]",
                    f"duplicate of a row in {seen_rows[key]}",
                )
            )
        seen_rows.setdefault(key, mf.file)
        _check_ref(mf, ("throughput", i, "model"), row.model, known_models, "model", problems)
        _check_ref(mf, ("throughput", i, "hardware"), row.hardware, known_hardware, "hardware", problems)
        _check_ref(mf, ("throughput", i, "quant"), row.quant, formats, "format", problems)
        if row.model is None and row.params is None:
            problems.append(
                Problem(
                    mf.file,
                    mf.line(("throughput", i)),
                    f"throughput[{i}].params",
                    "params is required when the model is not in the catalog",
                )
            )


def _check_logs(
    mf: Parsed[MeasurementsFile],
    known_models: Collection[str],
    formats: Collection[str],
    kv_dtypes: Collection[str],
    problems: list[Problem],
) -> None:
    """File sizes and memory logs name a known model, format and KV cache type."""
    for i, size in enumerate(mf.value.file_sizes):
        _check_ref(mf, ("file_sizes", i, "model"), size.model, known_models, "model", problems)
    for i, log in enumerate(mf.value.memory):
        _check_ref(mf, ("memory", i, "model"), log.model, known_models, "model", problems)
        _check_ref(mf, ("memory", i, "kv_type"), log.kv_type, kv_dtypes, "KV cache type", problems)
        if log.quant is not None:
            _check_ref(mf, ("memory", i, "quant"), log.quant, formats, "format", problems)


def _check_calibration(
    calibration_p: Parsed[Calibration],
    engines: Collection[str],
    hardware: Mapping[str, Hardware],
    problems: list[Problem],
) -> None:
    """Every fitted constant names a known engine; an implied peak, an accelerator with no published one."""
    cal = calibration_p.value
    for i, peak in enumerate(cal.implied_peaks):
        loc: Loc = ("implied_peaks", i, "hardware")
        _check_ref(calibration_p, loc, peak.hardware, hardware, "hardware", problems)
        hw = hardware.get(peak.hardware)
        if hw is not None and hw.compute_tflops is not None:
            message = f"{peak.hardware} has a published peak now: run `make calibrate`"
            problems.append(Problem(calibration_p.file, calibration_p.line(loc), field_name(loc), message))
    for field, fit_engines in (
        ("decode_fits", [fit.engine for fit in cal.decode_fits]),
        ("prefill_fits", [fit.engine for fit in cal.prefill_fits]),
        ("moe_fits", [fit.engine for fit in cal.moe_fits]),
    ):
        for i, engine in enumerate(fit_engines):
            _check_ref(calibration_p, (field, i, "engine"), engine, engines, "engine", problems)


def _check_wanted(
    wanted: Parsed[WantedFile], models: Mapping[str, Model], hardware: Mapping[str, Hardware], problems: list[Problem]
) -> None:
    """A wanted entry that the catalog now has is stale: it must leave wanted.yaml."""
    have = {
        "model": {k for m in models.values() for k in (m.name.lower(), m.slug, m.hf_id.lower())},
        "hardware": {k for h in hardware.values() for k in (h.name.lower(), h.slug)},
    }
    for i, w in enumerate(wanted.value.wanted):
        if w.name.lower() in have[w.kind]:
            loc: Loc = ("wanted", i, "name")
            message = f"{w.name} is in the catalog now: remove it from wanted.yaml"
            problems.append(Problem(wanted.file, wanted.line(loc), field_name(loc), message))


def _with_engines(
    models: dict[str, Model], arch: Parsed[ArchitecturesFile] | None, problems: list[Problem]
) -> dict[str, Model]:
    """The models with the engines that run their architecture (architectures.yaml), where it lists it."""
    runs: dict[str, tuple[str, ...]] = {}
    for i, entry in enumerate(arch.value.architectures if arch else ()):
        for j, model_type in enumerate(entry.model_types):
            if model_type in runs and arch is not None:
                loc: Loc = ("architectures", i, "model_types", j)
                problems.append(Problem(arch.file, arch.line(loc), field_name(loc), f"{model_type} is listed twice"))
            runs[model_type] = tuple(sorted(entry.engines))
    out = {}
    for slug, model in models.items():
        if model.engines is not None:
            message = "engines comes from content/architectures.yaml; remove it from the model file"
            problems.append(Problem(f"content/models/{slug}.yaml", 0, "engines", message))
        engines = runs.get(model.architecture.model_type)
        out[slug] = model.model_copy(update={"engines": engines}) if engines is not None else model
    return out


# How far past today (UTC) a date may lie: the day already began in every time zone east of UTC.
DATE_SLACK = dt.timedelta(days=1)


def _dates(value: object, loc: Loc) -> Iterator[tuple[Loc, dt.date]]:
    """Every date in a validated record, with where it is; release dates aside (a launch may be announced)."""
    if isinstance(value, dt.date):
        yield loc, value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            if name != "release_date":
                yield from _dates(getattr(value, name), (*loc, name))
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _dates(item, (*loc, i))


def _check_dates(records: Iterable[Parsed[Any] | None], today: dt.date, problems: list[Problem]) -> None:
    """A price, measurement or fit is dated the day it was seen, which cannot be after today: a date in
    the future (2099 for 2029) would make every other price look years old, since the site counts a
    price's age from the newest one."""
    latest = today + DATE_SLACK
    for parsed in records:
        if parsed is None:
            continue
        for loc, date in _dates(parsed.value, ()):
            if date > latest:
                message = f"date {date} is in the future (after {latest}): date an observation the day it was made"
                problems.append(Problem(parsed.file, parsed.line(loc), field_name(loc), message))


def load_catalog(root: Path, *, require_calibration: bool = True) -> Catalog:
    """Load and cross-check the whole catalog under ``root`` (the content/ folder)."""
    catalog, hardware_entries, model_entries = _load(root, require_calibration)
    problems: list[Problem] = []
    _check_multi_chip(hardware_entries, catalog, problems)
    _check_hosted(model_entries, catalog, problems)
    if problems:
        raise ContentErrors(problems)
    return catalog


def _load(root: Path, require_calibration: bool) -> tuple[Catalog, list[Parsed[Hardware]], list[Parsed[Model]]]:
    """The catalog under ``root`` and its hardware files, with every check that needs no sizing."""
    problems: list[Problem] = []
    if not root.is_dir():
        raise ContentErrors([Problem(str(root), 0, "", "content folder not found")])
    broken: set[str] = set()
    model_entries = _entries(root, "models", Model, problems, broken)
    models = _unique(model_entries, lambda m: m.slug, "slug", "model slug", problems)
    hardware_entries = _entries(root, "hardware", Hardware, problems, broken)
    hardware = _unique(hardware_entries, lambda h: h.slug, "slug", "hardware slug", problems)
    _unique_names(model_entries, "model", problems)
    _unique_names(hardware_entries, "hardware", problems)
    _check_same_chip(hardware_entries, hardware, problems)
    for folder, found in (("models", models), ("hardware", hardware)):
        if not found and not any(_yaml_files(root / folder)):
            problems.append(Problem(f"{root.name}/{folder}", 0, "", "no entries: the site needs at least one"))
    aliases_p = _one(root, "search-aliases.yaml", AliasesFile, problems, required=False)
    pages = _pages(root, problems)
    known_models = {**dict.fromkeys(broken), **models}
    known_hardware = {**dict.fromkeys(broken), **hardware}
    formats_p = _one(root, "formats.yaml", FormatsFile, problems)
    engines_p = _one(root, "engines.yaml", EnginesFile, problems)
    assumptions_p = _one(root, "assumptions.yaml", Assumptions, problems)
    rigs_p = _one(root, "rigs.yaml", RigsFile, problems, required=False)
    # `make calibrate` writes this file, so it must not need (or trust) the previous one.
    calibration_p = _one(root, "calibration.yaml", Calibration, problems) if require_calibration else None
    cloud_p = _one(root, "prices/cloud.yaml", CloudFile, problems, required=False)
    api_p = _one(root, "prices/api.yaml", ApiFile, problems, required=False)
    measurement_files = _measurement_files(root, problems)
    quality_p = _one(root, "quality.yaml", QualityFile, problems, required=False)
    wanted_p = _one(root, "wanted.yaml", WantedFile, problems, required=False)
    cli_p = _one(root, "cli.yaml", CliFile, problems, required=False)
    arch_p = _one(root, "architectures.yaml", ArchitecturesFile, problems, required=False)
    models = _with_engines(models, arch_p, problems)
    if wanted_p:
        _check_wanted(wanted_p, models, hardware, problems)
    today = dt.datetime.now(dt.UTC).date()
    files: list[Parsed[Any] | None] = [*model_entries, *hardware_entries, *measurement_files]
    dated = [assumptions_p, rigs_p, calibration_p, cloud_p, api_p, quality_p, wanted_p, cli_p]
    _check_dates([*files, *dated], today, problems)

    formats, kv_dtypes = _formats(formats_p, problems)
    engines = {e.name: e for e in engines_p.value.engines} if engines_p else {}
    _check_prices(cloud_p, api_p, known_hardware, known_models, problems)
    if quality_p:
        for i, q in enumerate(quality_p.value.measurements):
            _check_ref(quality_p, ("measurements", i, "format"), q.format, formats, "format", problems)
    seen_rows: dict[tuple[object, ...], str] = {}
    for mf in measurement_files:
        _check_throughput(mf, seen_rows, known_models, known_hardware, formats, problems)
        _check_logs(mf, known_models, formats, kv_dtypes, problems)
    if calibration_p and engines:
        _check_calibration(calibration_p, engines, hardware, problems)
    if engines_p:
        _check_backends(engines_p, formats, kv_dtypes, hardware, problems)
        _check_kin(engines_p, problems)

    if problems:
        raise ContentErrors(problems)
    assert formats_p and engines_p and assumptions_p
    assumptions = assumptions_p.value.model_copy(update={"rigs": rigs_p.value if rigs_p else None})
    catalog = Catalog.create(
        models=models.values(),
        hardware=_with_gpu_limits(hardware, assumptions).values(),
        formats=formats.values(),
        kv_dtypes=kv_dtypes.values(),
        engines=engines.values(),
        assumptions=assumptions,
        calibration=calibration_p.value if calibration_p else None,
        offers=cloud_p.value.offers if cloud_p else (),
        providers=cloud_p.value.providers if cloud_p else (),
        api_prices=api_p.value.prices if api_p else (),
        throughput=[row for mf in measurement_files for row in mf.value.throughput],
        file_sizes=[size for mf in measurement_files for size in mf.value.file_sizes],
        memory_logs=[log for mf in measurement_files for log in mf.value.memory],
        search_aliases=aliases_p.value.aliases if aliases_p else {},
        pages=pages,
        quality=quality_p.value.measurements if quality_p else (),
        quality_labels=quality_p.value.labels if quality_p else (),
        wanted=wanted_p.value.wanted if wanted_p else (),
        programs=cli_p.value.programs if cli_p else (),
    )
    return catalog, hardware_entries, model_entries


def _with_gpu_limits(hardware: dict[str, Hardware], assumptions: Assumptions) -> dict[str, Hardware]:
    """Macs whose files cite no GPU working set get macOS's default rule (assumptions.yaml); those that
    cite one keep it, marked measured. No Mac counts all its memory as usable by the GPU."""
    out = {}
    for slug, hw in hardware.items():
        if hw.gpu_memory_limit_gib is not None:
            hw = hw.model_copy(update={"gpu_memory_limit_kind": "measured"})
        elif hw.kind is HardwareKind.apple_unified:
            limit = assumptions.apple_gpu_limit_gib(hw.memory_bytes / GIB)
            hw = hw.model_copy(update={"gpu_memory_limit_gib": limit, "gpu_memory_limit_kind": "rule"})
        out[slug] = hw
    return out


def _check_hosted(entries: list[Parsed[Model]], catalog: Catalog, problems: list[Problem]) -> None:
    """Some accelerator of the catalog must run each model (on an engine that loads its architecture),
    or it would have no report at all."""
    from generator.sizing.estimate import served

    for parsed in entries:
        model = catalog.models.get(parsed.value.slug)
        if model is None or any(served(catalog, model, hw) for hw in catalog.hardware.values()):
            continue
        engines = ", ".join(e for e in model.engines or ()) or "none"
        message = f"no accelerator of the catalog runs {model.slug}: the engines that load it ({engines}) run on none"
        problems.append(
            Problem(parsed.file, parsed.line(("architecture", "model_type")), "architecture.model_type", message)
        )


def _check_multi_chip(entries: list[Parsed[Hardware]], catalog: Catalog, problems: list[Problem]) -> None:
    """A card of several devices (``chips``) runs every model on all of them at once, so some engine of the
    catalog must split each model over that many devices (a layer split needs a layer per device, a
    tensor split heads that divide evenly); otherwise its pair pages have no setup to show."""
    from generator.sizing.estimate import default_scenario, model_engines

    for parsed in entries:
        hw = parsed.value
        if hw.chips == 1 or catalog.hardware.get(hw.slug) is not hw:
            continue
        for model in catalog.models.values():
            # A model whose engines do not run on this platform at all has no pairs here (its pages say so).
            if not any(e.backends_on(hw) for e in model_engines(catalog, model)):
                continue
            try:
                default_scenario(catalog, model, hw)
            except LookupError:
                message = f"no engine of engines.yaml runs {model.slug} split over {hw.chips} devices"
                problems.append(Problem(parsed.file, parsed.line(("chips",)), "chips", message))
                break
