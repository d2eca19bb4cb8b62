"""Sends one message through SMTP submission with Python's own smtplib, as an app's script would.

Reads what to send as JSON on stdin ({host, port, tls: "starttls" | "implicit", cafile, user,
password, from, to, cc, bcc, subject, text, html, attachment, headers}) and prints the server's
reply to the stage that ended the conversation as JSON: {"stage", "code", "reply"}.
"""

import json
import mimetypes
import os
import smtplib
import ssl
import sys
from email.message import EmailMessage
from email.utils import getaddresses


def main() -> None:
    spec = json.load(sys.stdin)
    message = EmailMessage()
    message["From"] = spec["from"]
    message["To"] = ", ".join(spec["to"])
    if spec.get("cc"):
        message["Cc"] = ", ".join(spec["cc"])
    message["Subject"] = spec["subject"]
    for name, value in spec.get("headers", {}).items():
        message[name] = value
    message.set_content(spec["text"])
    message.add_alternative(spec["html"], subtype="html")
    if spec.get("attachment"):
        path = spec["attachment"]
        kind = (mimetypes.guess_type(path)[0] or "application/octet-stream").split("/")
        with open(path, "rb") as file:
            message.add_attachment(file.read(), maintype=kind[0], subtype=kind[1], filename=os.path.basename(path))

    # The service's certificate is self-signed in development: the client trusts exactly it.
    context = ssl.create_default_context(cafile=spec["cafile"])
    stage = "connect"
    try:
        if spec["tls"] == "implicit":
            smtp = smtplib.SMTP_SSL(spec["host"], spec["port"], context=context, timeout=30)
        else:
            smtp = smtplib.SMTP(spec["host"], spec["port"], timeout=30)
            smtp.starttls(context=context)
        stage = "login"
        smtp.login(spec["user"], spec["password"])
        stage = "mail"
        sender = getaddresses([spec["from"]])[0][1]
        code, reply = smtp.mail(sender)
        if code != 250:
            raise smtplib.SMTPResponseException(code, reply)
        stage = "rcpt"
        for recipient in spec["to"] + spec.get("cc", []) + spec.get("bcc", []):
            code, reply = smtp.rcpt(getaddresses([recipient])[0][1])
            if code not in (250, 251):
                raise smtplib.SMTPResponseException(code, reply)
        stage = "data"
        code, reply = smtp.data(message.as_bytes())
        smtp.quit()
    except smtplib.SMTPResponseException as error:
        code, reply = error.smtp_code, error.smtp_error
    print(json.dumps({"stage": stage, "code": code, "reply": reply.decode("utf-8", "replace") if isinstance(reply, bytes) else reply}))


if __name__ == "__main__":
    main()
