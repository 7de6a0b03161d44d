#!/usr/bin/env python3
"""Print the MIME tree of each message as Python's email package reads it.

Usage: mimetree.py FILE...   or   echo '["a.eml", "b.eml"]' | mimetree.py

For each file, in order, one line of JSON:

  {"file": "a.eml", "parts": [PART, ...]}   or   {"file": ..., "error": "..."}

with a PART for each entity in Message.walk() order:

  path          "top", then "1", "2.msg", "2.msg.1", ... as package mailhdr
                writes paths: a number for a part of a multipart (from 1),
                "msg" for the message a message/* part carries
  content_type  the first Content-Type field's raw value, unfolded, or null
  maintype, subtype
                get_content_maintype() and get_content_subtype(): the type
                as Python resolves it from the raw field (text/plain for one
                it cannot read, message/rfc822 in a multipart/digest)
  multipart     is_multipart(): a multipart, or a message/* part holding a
                message
  boundary      get_boundary() of a multipart, else null
  sha256        of the leaf's payload as it is in the message (not decoded
                from its Content-Transfer-Encoding), else null
  preamble, epilogue
                of a multipart: the SHA-256 of the text before its first
                delimiter and after its close delimiter, or null if none
  defects       the class names of the entity's defects

It is the tests' second, independent reader of MIME structure: see
../mail_python_test.go. Standard library only.

The policy is compat32 (message_from_binary_file's default), not
policy.default, and not both. Both split a message with the same parser
(email.feedparser), which asks each entity for its type and boundary; they
differ in the header value they answer from. compat32 answers from the
field's raw text; policy.default from the field as its RFC 5322 header
parser re-renders it, and that parser is the less faithful reader of
structure here:
  - it refuses mail's common unquoted boundary=----=_Part_1_2.3 (RFC 2045
    wants it quoted), so it finds no parts in the multipart/alternative
    of mailhdr/testdata/corpus/nested.eml, where compat32 and package
    mailhdr find two;
  - it decodes RFC 2047 encoded words in a boundary, which RFC 2047 forbids
    there and the delimiter lines do not hold decoded;
  - it reads boundary="unterminated (corpus/malformed-ct.eml) as the
    boundary unterminated and finds parts, where compat32 takes the quote
    for part of the boundary and finds none, and mailhdr, which cannot
    parse the field, looks for none.
Neither reads comments in the type (text/plain (x) is type "text/plain
(x)" to both) or a boundary of 8-bit octets (both replace them with
U+FFFD). Running both would only add policy.default's misreadings, which
a rewrite that quotes an unquoted boundary (as the round trip does) would
appear to "fix".
"""

import email
import email.policy
import hashlib
import json
import sys


def text(s):
    """A str from the parser, which holds input octets that are not ASCII
    as surrogate escapes, as JSON text: UTF-8 as is, other octets as \\xNN."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def digest(s):
    """The SHA-256 of a payload, preamble or epilogue as the message's
    octets, or None for none.

    The parser holds them as the input's octets decoded as ASCII with
    surrogateescape, which encodes back to them exactly. A leaf's payload
    is read from part._payload, because get_payload(decode=False) is not
    that: for a payload holding octets that are not ASCII it returns them
    decoded with the part's charset and errors="replace", so that the
    same octets could hash differently under another spelling of the
    charset, and different octets the same."""
    if s is None:
        return None
    if isinstance(s, str):
        s = s.encode("ascii", "surrogateescape")
    return hashlib.sha256(s).hexdigest()


def raw_content_type(part):
    # raw_items gives the value as parsed, before compat32 turns a value
    # holding 8-bit octets into a Header object.
    for name, value in part.raw_items():
        if name.lower() == "content-type":
            return text("".join(value.splitlines()))
    return None


def tree(msg):
    paths = {id(msg): "top"}
    parts = []
    for part in msg.walk():
        path = paths[id(part)]
        multipart = part.is_multipart()
        if multipart:
            children = part.get_payload()
            message = part.get_content_maintype() == "message"
            for i, child in enumerate(children, 1):
                if message:
                    # message/delivery-status holds several header blocks.
                    step = "msg" if len(children) == 1 else "msg%d" % i
                else:
                    step = str(i)
                paths[id(child)] = step if path == "top" else path + "." + step
        boundary = part.get_boundary() if multipart else None
        parts.append({
            "path": path,
            "content_type": raw_content_type(part),
            "maintype": text(part.get_content_maintype()),
            "subtype": text(part.get_content_subtype()),
            "multipart": multipart,
            "boundary": None if boundary is None else text(boundary),
            "sha256": None if multipart else digest(part._payload),
            "preamble": digest(part.preamble) if multipart else None,
            "epilogue": digest(part.epilogue) if multipart else None,
            "defects": [type(d).__name__ for d in part.defects],
        })
    return parts


def main():
    files = sys.argv[1:] or json.load(sys.stdin)
    for name in files:
        try:
            with open(name, "rb") as f:
                msg = email.message_from_binary_file(f, policy=email.policy.compat32)
            doc = {"file": name, "parts": tree(msg)}
        except Exception as e:  # report it for this message, go on with the next
            doc = {"file": name, "error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(doc))


if __name__ == "__main__":
    main()
