"""validate_ir.py: check JSON documents against a JSON Schema.

Run through tools/validate-ir, which uses Debian's /usr/bin/python3 and its
python3-jsonschema (4.10 on Debian 12):

    tools/validate-ir SCHEMA FILE...

The schema is checked first against its own metaschema (draft 2020-12 or
draft-07, from its "$schema"); then each FILE is read as JSON, rejecting
duplicate keys as lib/ir.c does, and validated.  Every failure is printed
as one line

    FILE: /json/pointer: message

sorted by position in the document.  A FILE of `-` reads standard input.

Exit status: 0 every document is valid; 1 at least one document is not
(or cannot be read as JSON); 2 a bad invocation or an invalid schema.
"""
import json
import signal
import sys

try:
    import jsonschema
    from jsonschema import validators
except ImportError:  # pragma: no cover - depends on the machine
    sys.stderr.write("validate-ir: python3-jsonschema is not installed "
                     "(tools/install-deps installs it)\n")
    sys.exit(2)


def pointer(path):
    """A JSON pointer (RFC 6901) for a jsonschema error path."""
    out = ""
    for part in path:
        out += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return out or "/"


def no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError("duplicate key %r" % key)
        obj[key] = value
    return obj


def load_json(path):
    if path == "-":
        return json.load(sys.stdin, object_pairs_hook=no_duplicates)
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"),
                          object_pairs_hook=no_duplicates)


def leaf_errors(error):
    """The most specific errors under one reported error.

    An error from `allOf`/`if`-`then` dispatch already points at the value;
    one from `oneOf`/`anyOf` carries its causes in `context`, and the
    deepest of those is what a reader needs."""
    if not error.context:
        return [error]
    deepest = max(len(e.absolute_path) for e in error.context)
    if deepest <= len(error.absolute_path):
        return [error]
    return [e for e in error.context if len(e.absolute_path) == deepest]


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write("usage: validate-ir SCHEMA FILE...\n")
        return 2
    schema_path, files = argv[1], argv[2:]
    try:
        schema = load_json(schema_path)
    except (OSError, ValueError) as e:
        sys.stderr.write("validate-ir: %s: cannot read the schema: %s\n"
                         % (schema_path, e))
        return 2
    cls = validators.validator_for(schema, default=None)
    if cls is None:
        sys.stderr.write("validate-ir: %s: unknown or missing \"$schema\"\n"
                         % schema_path)
        return 2
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        sys.stderr.write("validate-ir: %s: not a valid schema: %s: %s\n"
                         % (schema_path, pointer(e.absolute_path), e.message))
        return 2
    validator = cls(schema)

    failed = 0
    for path in files:
        try:
            doc = load_json(path)
        except (OSError, ValueError) as e:
            print("%s: /: not a JSON document: %s" % (path, e))
            failed += 1
            continue
        try:
            errors = list(validator.iter_errors(doc))
        except jsonschema.exceptions.RefResolutionError as e:
            sys.stderr.write("validate-ir: %s: unresolvable reference: %s\n"
                             % (schema_path, e))
            return 2
        if not errors:
            continue
        failed += 1
        lines = set()
        for err in errors:
            for leaf in leaf_errors(err):
                lines.add((tuple(str(p) for p in leaf.absolute_path),
                           "%s: %s: %s" % (path, pointer(leaf.absolute_path),
                                           leaf.message)))
        for _, line in sorted(lines):
            print(line)
    if failed:
        sys.stderr.write("validate-ir: %d of %d document%s invalid against %s\n"
                         % (failed, len(files), "" if len(files) == 1 else "s",
                            schema_path))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
