"""Sends one message through SMTP submission with Django's own mail: its SMTP backend and
EmailMultiAlternatives, configured as a Django project's settings would be.

Reads what to send as JSON on stdin (as smtplib_send.py does) and prints {"sent": n} or, when the
server refused it, {"error", "code", "reply"}.
"""

import json
import smtplib
import sys

import django
from django.conf import settings


def main() -> None:
    spec = json.load(sys.stdin)
    settings.configure(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST=spec["host"],
        EMAIL_PORT=spec["port"],
        EMAIL_HOST_USER=spec["user"],
        EMAIL_HOST_PASSWORD=spec["password"],
        EMAIL_USE_TLS=spec["tls"] == "starttls",
        EMAIL_USE_SSL=spec["tls"] == "implicit",
        EMAIL_TIMEOUT=30,
        DEFAULT_FROM_EMAIL=spec["from"],
    )
    django.setup()
    from django.core.mail import EmailMultiAlternatives

    message = EmailMultiAlternatives(
        subject=spec["subject"],
        body=spec["text"],
        from_email=spec["from"],
        to=spec["to"],
        cc=spec.get("cc", []),
        bcc=spec.get("bcc", []),
        headers=spec.get("headers", {}),
    )
    message.attach_alternative(spec["html"], "text/html")
    if spec.get("attachment"):
        message.attach_file(spec["attachment"])
    try:
        print(json.dumps({"sent": message.send()}))
    except smtplib.SMTPResponseException as error:
        reply = error.smtp_error.decode("utf-8", "replace") if isinstance(error.smtp_error, bytes) else error.smtp_error
        print(json.dumps({"error": type(error).__name__, "code": error.smtp_code, "reply": reply}))


if __name__ == "__main__":
    main()
