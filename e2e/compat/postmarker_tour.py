"""Postmark's tour through postmarker, PyPI's Postmark client, pointed at Postbus by its documented
root_api_url option and nothing else.

Reads the tour's spec as JSON on stdin (the gateway's URL, a project-bound key, the sender, the
recipients, the email key) and prints one JSON line: each step's answer, or the ClientError it
raised ({"error_code", "message"}).
"""

import base64
import json
import sys

from postmarker.core import PostmarkClient
from postmarker.exceptions import ClientError


def refused(step):
    """The ClientError a step raised, as {"error_code", "message"}; the answer when it raised none."""
    try:
        return {"answer": step()}
    except ClientError as error:
        return {"error_code": error.error_code, "message": str(error)}


def main() -> None:
    spec = json.load(sys.stdin)
    root = spec["base_url"].rstrip("/") + "/"
    postmark = PostmarkClient(server_token=spec["token"], root_api_url=root)
    note = base64.b64encode(b"a note from the Python tour").decode()

    sent = postmark.emails.send(
        From=spec["from"],
        To="Ada Py <%s>" % spec["to"],
        Cc=spec["cc"],
        Subject="Python tour",
        HtmlBody="<p>Hello from postmarker</p>",
        TextBody="Hello from postmarker",
        Tag="python-tour",
        Metadata={"tour": "python"},
        Headers={"X-Tour": "python"},
        Attachments=[("note.txt", note, "text/plain")],
    )
    batch = postmark.emails.send_batch(
        {"From": spec["from"], "To": spec["batch_to"], "Subject": "Batch 1", "TextBody": "one"},
        {"From": spec["from"], "To": "not an address", "Subject": "Batch 2", "TextBody": "two"},
    )
    template = postmark.emails.send_with_template(
        TemplateAlias=spec["email_key"],
        TemplateModel={"code": "py-4711"},
        From=spec["from"],
        To=spec["template_to"],
    )
    inactive = refused(
        lambda: postmark.emails.send(From=spec["from"], To=spec["suppressed"], Subject="No", TextBody="Never sent")
    )
    bad_key = refused(
        lambda: PostmarkClient(server_token="pb_sdk_not-a-key", root_api_url=root).emails.send(
            From=spec["from"], To=spec["to"], Subject="No", TextBody="Never sent"
        )
    )
    details = postmark.messages.outbound.get(sent["MessageID"]).as_dict()
    print(
        json.dumps(
            {
                "sent": sent,
                "batch": batch,
                "template": template,
                "inactive": inactive,
                "bad_key": bad_key,
                "details": details,
            }
        )
    )


if __name__ == "__main__":
    main()
