"""Reading one YAML file (an event config or an engine definition) as hostile
input: bounded in size, depth and alias expansion, a repeated key an error,
every problem one line naming the file (and the line, for syntax errors)."""

from __future__ import annotations

from pathlib import Path

import yaml

from tcecd.errors import ConfigError


def show_path(path: Path) -> str:
    """A path as a user would type it: relative to the working directory when
    below it, absolute otherwise."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


#: Limits on a YAML file (configs and engine definitions are hostile input: a
#: tiny file must not exhaust memory, time or the stack). A real config is a
#: few kilobytes, a few levels deep, a few hundred values.
MAX_YAML_CHARS = 1_000_000
MAX_YAML_DEPTH = 64
#: Values a document may hold with every alias expanded to its full size (an
#: "alias bomb" of nine nested anchors expands 9**9 times).
MAX_YAML_VALUES = 100_000


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key repeated in one mapping is an
    error (PyYAML keeps the last one silently: a pasted second ``pairing:``
    would quietly replace the first), and that the document's nesting depth
    and its size with aliases expanded are bounded (:data:`MAX_YAML_DEPTH`,
    :data:`MAX_YAML_VALUES`; a recursive alias is refused). PyYAML's composer
    recurses once per level: without the depth bound a deep file ends in a
    ``RecursionError``; without the size bound an alias bomb in gigabytes."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        #: Expanded size of every finished node, by id (the nodes stay alive in the tree).
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            anchor = event.anchor
            target = self.anchors.get(anchor)
            if target is not None and id(target) not in self._sizes:
                raise yaml.composer.ComposerError(
                    None, None, f"alias *{anchor} refers to a value that contains it", mark
                )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested more than {MAX_YAML_DEPTH} levels deep", mark
                )
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if node is not None and id(node) not in self._sizes:
            size = 1
            if isinstance(node, yaml.SequenceNode):
                size += sum(self._sizes.get(id(child), 1) for child in node.value)
            elif isinstance(node, yaml.MappingNode):
                size += sum(
                    self._sizes.get(id(k), 1) + self._sizes.get(id(v), 1) for k, v in node.value
                )
            if size > MAX_YAML_VALUES:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"more than {MAX_YAML_VALUES} values once aliases are expanded",
                    mark,
                )
            self._sizes[id(node)] = size
        return node


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[object, object]:
    loader.flatten_mapping(node)
    seen: set[object] = set()
    for key_node, _value in node.value:
        key = loader.construct_object(key_node)
        try:
            duplicate = key in seen
        except TypeError:  # an unhashable key; the constructor reports it
            continue
        if duplicate:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return dict(loader.construct_pairs(node))


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)

#: Longest integer literal accepted (Python refuses to convert over 4300 digits,
#: with a ValueError that would otherwise escape as a traceback).
MAX_INT_CHARS = 100


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    if len(str(node.value)) > MAX_INT_CHARS:
        raise yaml.constructor.ConstructorError(
            None, None, f"a number of more than {MAX_INT_CHARS} characters", node.start_mark
        )
    value: int = loader.construct_yaml_int(node)
    return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def read_yaml(path: Path) -> object:
    """Parse one YAML file; unreadable files and syntax errors are one-line
    :class:`ConfigError` s (with the line number for syntax errors)."""
    shown = show_path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(MAX_YAML_CHARS + 1)
    except FileNotFoundError:
        raise ConfigError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{shown}: is a directory, expected a YAML file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{shown}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot read: {exc.strerror}") from None
    if len(text) > MAX_YAML_CHARS:
        raise ConfigError(f"{shown}: larger than {MAX_YAML_CHARS} characters; not a config")
    try:
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise ConfigError(f"{shown}: {line}invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:  # a control character: PyYAML's text is two lines
        raise ConfigError(
            f"{shown}: invalid YAML: unacceptable character {chr(exc.character)!r} "
            f"at position {exc.position}"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{shown}: invalid YAML: {' '.join(str(exc).split())}") from None
