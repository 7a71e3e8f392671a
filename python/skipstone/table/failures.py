"""Failures of table operations told in a user's terms."""
from __future__ import annotations


def failure_reason(e: BaseException) -> str:
    """What a failure says in a user's terms: a Java exception's own message (and its root
    cause's), not py4j's wrapping with the Java stack."""
    from py4j.protocol import Py4JJavaError

    if isinstance(e, Py4JJavaError):
        failure, messages = e.java_exception, []
        while failure is not None and len(messages) < 4:
            message = failure.getMessage()
            if message and str(message) not in messages:
                messages.append(str(message).split("\n")[0])
            failure = failure.getCause()
        return "; caused by: ".join(messages) or str(e.java_exception)
    text = str(e)
    return text.split("\n")[0] if text else type(e).__name__
