"""Resend's tour through resend, PyPI's Resend client, pointed at Postbus by its RESEND_API_URL
environment variable (read when the package is imported) and nothing else.

Reads the tour's spec as JSON on stdin (a project-bound key, the sender, the recipients, the email
key) and prints one JSON line: each step's answer, or the ResendError it raised
({"code", "name", "message"}).
"""

import json
import sys
from datetime import datetime, timedelta, timezone

import resend
from resend.exceptions import ResendError


def answer(step):
    """A step's answer as {"answer"}, or the ResendError it raised as {"code", "name", "message"}."""
    try:
        found = step()
        return {"answer": {k: v for k, v in found.items() if k != "http_headers"} if isinstance(found, dict) else found}
    except ResendError as error:
        return {"code": int(error.code), "name": error.error_type, "message": error.message}


def main() -> None:
    spec = json.load(sys.stdin)
    resend.api_key = spec["key"]
    sender = spec["from"]

    sent = resend.Emails.send(
        {
            "from": sender,
            "to": ["Ada Py <%s>" % spec["to"]],
            "cc": spec["cc"],
            "subject": "Python tour",
            "html": "<p>Hello from resend-python</p>",
            "text": "Hello from resend-python",
            "headers": {"X-Tour": "python"},
            "tags": [{"name": "tour", "value": "python"}],
            # As the SDK documents a file: its bytes as a list of integers.
            "attachments": [{"filename": "note.txt", "content": list(b"a note from the Python tour")}],
        }
    )
    good = {"from": sender, "to": spec["batch_to"], "subject": "Batch", "text": "one"}
    bad = {"from": sender, "to": "not an address", "subject": "Batch", "text": "two"}
    strict = answer(lambda: resend.Batch.send([good, bad]))
    permissive = answer(lambda: resend.Batch.send([good, bad], {"batch_validation": "permissive"}))
    template = resend.Emails.send({"to": spec["template_to"], "template": {"id": spec["email_key"], "variables": {"code": "py-4711"}}})
    suppressed = resend.Emails.send({"from": sender, "to": spec["suppressed"], "subject": "No", "text": "never sent"})

    scheduled = resend.Emails.send({"from": sender, "to": spec["scheduled_to"], "subject": "Later", "text": "later", "scheduled_at": "in 1 hour"})
    later = (datetime.now(timezone.utc) + timedelta(hours=2)).replace(microsecond=0).isoformat()
    updated = answer(lambda: resend.Emails.update({"id": scheduled["id"], "scheduled_at": later}))
    moved = resend.Emails.get(scheduled["id"])
    canceled = answer(lambda: resend.Emails.cancel(scheduled["id"]))
    after_cancel = resend.Emails.get(scheduled["id"])

    first = {"from": sender, "to": spec["to"], "subject": "Once", "text": "once"}
    once = resend.Emails.send(first, {"idempotency_key": "python-tour-once"})
    again = resend.Emails.send(first, {"idempotency_key": "python-tour-once"})
    other = answer(lambda: resend.Emails.send({**first, "text": "another body"}, {"idempotency_key": "python-tour-once"}))

    read = resend.Emails.get(sent["id"])
    resend.api_key = "pb_full_not-a-key"
    bad_key = answer(lambda: resend.Emails.send(first))
    print(
        json.dumps(
            {
                "sent": sent["id"],
                "strict": strict,
                "permissive": permissive,
                "template": template["id"],
                "suppressed": suppressed["id"],
                "scheduled": scheduled["id"],
                "later": later,
                "updated": updated,
                "moved": {"scheduled_at": moved["scheduled_at"], "last_event": moved["last_event"]},
                "canceled": canceled,
                "after_cancel": after_cancel["last_event"],
                "idempotent": [once["id"], again["id"]],
                "other_body": other,
                "read": {k: v for k, v in read.items() if k != "http_headers"},
                "bad_key": bad_key,
            }
        )
    )


if __name__ == "__main__":
    main()
