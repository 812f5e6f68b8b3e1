"""The exceptions every layer raises; the command line turns each into one line."""


class CertifyError(Exception):
    """Base class: an expected failure with a one-line, user-facing message."""


class InputError(CertifyError):
    """Bad user input (a non-prime p, a parameter of the wrong sign, ...): exit code 2."""


class HypothesisError(InputError):
    """Parameters that break a hypothesis of the theorem; the message names the inequality."""


class NotCertified(CertifyError):
    """Verification failed: an inequality could not be proved with balls.

    Raised instead of ever returning an unverified value (CAPD style). The message
    names the inequality and, where it is known, the enclosure that failed it;
    ``claim_id`` names the certificate claim that rests on it, when there is one.
    """

    def __init__(self, message, claim_id=None):
        super().__init__(message)
        self.claim_id = claim_id


class MalformedCertificate(CertifyError):
    """A certificate that is not valid certify/1 JSON (schema, syntax, size): exit code 2."""


class Rejected(CertifyError):
    """A well-formed certificate with a claim that does not verify: exit code 1."""

    def __init__(self, claim_id, reason):
        super().__init__(f"{claim_id}: {reason}")
        self.claim_id = claim_id
        self.reason = reason
