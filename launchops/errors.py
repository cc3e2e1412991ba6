"""Every error that launchops raises.

    LaunchOpsError
    ├── InvalidInputError ........... input refused before anything was sent (names the field)
    │   ├── LaunchFileError ......... a launch file broke rules: file, line, field and rule each
    │   └── ModelInputError ......... a model's input broke rules (`LaunchConfig.model_validate`):
    │                                 `field: rule` each, in the wire's names (also a ValueError)
    ├── ServiceError ................ talking to the service went wrong
    │   ├── NetworkError ............ no HTTP answer: connect failure, reset, protocol error  [t]
    │   │   └── RequestTimeoutError
    │   ├── ServiceGone ............. no usable answer for a whole call's deadline: the run   [t]
    │   │                             stops asking it (every later call fails at once)
    │   └── APIStatusError .......... the service answered with an error (status, error, details)
    │       ├── BadRequestError ......... 400: invalid input, validation failure
    │       ├── ForbiddenError .......... 403: e.g. withdraw by a non-owner
    │       ├── NotFoundError ........... 404
    │       ├── RateLimitedError ........ 429, with `retry_after` seconds when given            [t]
    │       ├── ServerError ............. 5xx                                                   [t]
    │       └── UnexpectedResponseError . any other status, or a body that is not the contract
    │           └── NotJsonError ........ a body that is not JSON (a CDN's or proxy's page)     [t]
    ├── ChainError .................. the chain or its RPC failed or refused
    │   ├── RpcUnavailable .......... no useful RPC answer: 429, 5xx, connection, timeout,   [t]
    │   │   │                         a lagging or unhealthy node (-32005, -32016, ...), a
    │   │   │                         malformed body (launchops.chain.answers maps them all)
    │   │   └── RpcGone ............. no usable answer for a whole call's deadline: the run
    │   │                             stops asking it (every later call fails at once)
    │   ├── RpcRefused .............. the node refused the call itself (invalid params, ...)
    │   ├── TransactionRejected ..... the node refused a transaction (preflight, signature)
    │   ├── WrongCluster ............ the RPC serves another cluster than the profile's
    │   │                             network: refused before anything is created or sent
    │   └── SigningError ............ a transaction cannot be signed as it is
    │       └── TransactionRefused .. a fund or withdraw is not what was asked: left unsigned
    ├── KeypairError ................ a key could not be loaded (never shows it)
    │   └── WrongKey ................ not the key that created the launch: nothing done
    ├── ScheduledLater .............. a launch file scheduled later than now: its deployment
    │                                 launches it then (refused unless asked to launch now)
    ├── SecretUnavailable ........... a launch's secret (first buyer's key, Twitter token)
    │                                 is not held and its file cannot give it again
    ├── PrefectUnavailable .......... the configured Prefect API does not answer
    ├── FlowResultLost .............. a flow run ended, and Prefect's server answered its
    │                                 end without the result: the journal has what it did
    ├── JournalError ................ the journal refuses an operation (a changed config ...)
    │   └── ConfigChanged ........... a file changed under a known key: refused, exit 2
    │   └── JournalUnavailable ...... its database did not answer                            [t]
    ├── LeaseError .................. another worker has the launch
    │   ├── LeaseHeld ............... ... so this one does not start it
    │   └── LeaseLost ............... ... it took the lease over while this one worked
    ├── StepTimedOut ................ a step did not end within the profile's step_seconds:
    │                                 the launch stays where a re-run continues it
    ├── BlockhashExpired ............ nothing of a create landed and its blockhash is dead:
    │                                 the runner creates again (launchops.retries)
    ├── SandboxPortTaken ............ the sandbox profile's address is taken by something else
    └── SandboxRefusal .............. inside the sandbox only: becomes its error answer
        ├── LaunchRejected .......... a 400 of create or register, with details
        ├── LaunchForbidden ......... a 403 of create (an agent the wallet does not own)
        └── RpcError ................ a JSON-RPC error answer: code, message, data

[t]: `transient`, repeating the same call may succeed. `retried` is set on an error whose
owner already repeated it (`launchops.retries` says who owns each retry): nobody above
repeats it again. The client library re-exports the service's part as
`launchops.api.errors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "APIStatusError",
    "BadRequestError",
    "BlockhashExpired",
    "ChainError",
    "ConfigChanged",
    "FlowResultLost",
    "ForbiddenError",
    "InvalidInputError",
    "JournalError",
    "JournalUnavailable",
    "KeypairError",
    "LaunchFileError",
    "LaunchForbidden",
    "LaunchOpsError",
    "LaunchRejected",
    "LeaseError",
    "LeaseHeld",
    "LeaseLost",
    "ModelInputError",
    "NetworkError",
    "NotFoundError",
    "NotJsonError",
    "PrefectUnavailable",
    "Problem",
    "RateLimitedError",
    "RequestTimeoutError",
    "RpcError",
    "RpcGone",
    "RpcRefused",
    "RpcUnavailable",
    "SandboxPortTaken",
    "SandboxRefusal",
    "SandboxUnavailable",
    "ScheduledLater",
    "SecretUnavailable",
    "ServerError",
    "ServiceError",
    "ServiceGone",
    "SigningError",
    "StepTimedOut",
    "TransactionRefused",
    "TransactionRejected",
    "UnexpectedResponseError",
    "WrongCluster",
    "WrongKey",
]


class LaunchOpsError(Exception):
    """Base of every error launchops raises on purpose."""

    transient: bool = False  # repeating the same call may succeed
    retried: bool = False  # its owner repeated it already, as launchops.retries says


# ── input ───────────────────────────────────────────────────────────────────


class InvalidInputError(LaunchOpsError):
    """Input failed local validation; `problems` lists (field, message) pairs."""

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass(frozen=True)
class Problem:
    """One broken rule of a launch file, where it is."""

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.field}: {self.message}"


class ModelInputError(InvalidInputError, ValueError):
    """A model's input broke its rules: `field: rule` for each, on one line, in the wire's
    names (`launch.symbol: must be 1 to 10 characters (got 14)`); `errors()` gives
    pydantic's own records, as a ValidationError's does."""

    def __init__(self, problems: list[tuple[str, str]], errors: list[Any]) -> None:
        super().__init__("; ".join(f"{field}: {rule}" for field, rule in problems), problems)
        self._errors = errors

    def errors(self, **_: Any) -> list[Any]:
        return list(self._errors)


class LaunchFileError(InvalidInputError):
    """A launch file failed validation; `file_problems` says where and why, each."""

    def __init__(self, problems: list[Problem]) -> None:
        self.file_problems = problems
        text = "\n".join(str(p) for p in problems)
        super().__init__(
            text, [(f"{p.file}:{p.line or '-'} {p.field}", p.message) for p in problems]
        )


# ── the service ─────────────────────────────────────────────────────────────


class ServiceError(LaunchOpsError):
    """A call to the service failed."""

    def __init__(self, message: str, *, method: str = "", url: str = "") -> None:
        super().__init__(message)
        self.method = method
        self.url = url


class NetworkError(ServiceError):
    """No HTTP answer came back (connect error, reset connection, protocol error)."""

    transient = True


class RequestTimeoutError(NetworkError):
    """The service did not answer in time."""


class ServiceGone(ServiceError):
    """The service gave no usable answer for a whole call's deadline (its attempts all
    failed transiently): this run asks it nothing more, every later call fails at once."""

    transient = True
    retried = True


class APIStatusError(ServiceError):
    """The service answered with an error status.

    `error` is the service's error text (the envelope's `error` string, or the
    `error.message` of the read endpoints), `details` its validation details if any,
    `body` the decoded body as received.
    """

    def __init__(
        self,
        status: int,
        error: str,
        *,
        details: list[Any] | None = None,
        body: Any = None,
        method: str = "",
        url: str = "",
    ) -> None:
        self.status = status
        self.error = error
        self.details = details or []
        self.body = body
        self.transient = status == 429 or status >= 500
        super().__init__(self._describe(), method=method, url=url)

    def _describe(self) -> str:
        text = f"{self.status} {self.error}"
        if self.details:
            shown = "; ".join(_detail_text(d) for d in self.details[:5])
            more = f" (+{len(self.details) - 5} more)" if len(self.details) > 5 else ""
            text += f": {shown}{more}"
        return text


class BadRequestError(APIStatusError):
    """400: the service rejected the request's input."""


class ForbiddenError(APIStatusError):
    """403: the caller may not do this (e.g. withdraw from an agent it does not own)."""


class NotFoundError(APIStatusError):
    """404: no such agent, card or token."""


class RateLimitedError(APIStatusError):
    """429: too many requests; `retry_after` is the wait the service asked for, if any."""

    def __init__(self, status: int, error: str, *, retry_after: float | None = None, **kw: Any):
        self.retry_after = retry_after
        super().__init__(status, error, **kw)


class ServerError(APIStatusError):
    """5xx: the service failed."""


class UnexpectedResponseError(APIStatusError):
    """A status the contract does not name, or a body that does not match the contract."""


class NotJsonError(UnexpectedResponseError):
    """The answer is not JSON (a CDN's challenge page, a proxy's error page): it is not the
    service's answer, so asking again may get it. Its text is never kept or shown."""

    def __init__(self, status: int, error: str, **kw: Any) -> None:
        super().__init__(status, error, **kw)
        self.transient = True


def _detail_text(detail: Any) -> str:
    if isinstance(detail, dict):
        where = detail.get("path") or detail.get("field") or detail.get("loc")
        if isinstance(where, list):
            where = ".".join(str(p) for p in where)
        message = detail.get("message") or detail.get("msg") or detail
        return f"{where}: {message}" if where else str(message)
    return str(detail)


# ── the chain ───────────────────────────────────────────────────────────────


class ChainError(LaunchOpsError):
    """The chain or its RPC refused or failed."""


class RpcUnavailable(ChainError):
    """The RPC did not answer usefully: 429, 5xx, connection, timeout, a node behind or
    unhealthy, an answer that is not JSON-RPC. `code` is the JSON-RPC code, if one came."""

    transient = True

    def __init__(
        self, message: str, *, code: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.retry_after = retry_after


class RpcGone(RpcUnavailable):
    """The RPC gave no usable answer for a whole call's deadline (blackholed, down, every
    call rate-limited): this run asks it nothing more, every later call fails at once."""

    retried = True


class RpcRefused(ChainError):
    """The node refused the call itself (invalid request or params, unsupported method or
    version, a body too large): asking the same again cannot help."""

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TransactionRejected(ChainError):
    """The node refused a transaction (preflight failure, bad signature, ...)."""

    def __init__(self, message: str, err: Any = None, *, code: int | None = None) -> None:
        super().__init__(message)
        self.err = err
        self.code = code

    @property
    def blockhash_not_found(self) -> bool:
        return "Blockhash not found" in str(self) or str(self.err) == "BlockhashNotFound"

    @property
    def already_processed(self) -> bool:
        return "already been processed" in str(self) or "AlreadyProcessed" in str(self.err)

    @property
    def unfunded(self) -> bool:
        """Refused for want of SOL (the fee payer's, or rent): funded, it may pass."""
        err = self.err
        if err in ("AccountNotFound", "InsufficientFundsForFee"):
            return True
        if isinstance(err, dict) and "InsufficientFundsForRent" in err:
            return True
        return "insufficient lamports" in str(self)


class WrongCluster(ChainError):
    """The profile's RPC answers another genesis hash than its network's: nothing is sent."""


class SigningError(ChainError):
    """A transaction cannot be signed as it is (wrong signer, broken signature)."""


class TransactionRefused(SigningError):
    """The transaction is not what was asked for; it was not signed."""


# ── keys, journal, leases, the runner ───────────────────────────────────────


class KeypairError(LaunchOpsError):
    """The keypair could not be loaded; the message never contains key material."""


class WrongKey(KeypairError):
    """The profile's key is not the one that created the launch: nothing of it is sent,
    signed or registered with it."""


class ScheduledLater(LaunchOpsError):
    """A launch file whose `schedule:` is still ahead (a time to come, or a cron
    expression): its own deployment launches it then. Refused before anything is read
    from the network or journaled, unless the caller asks to launch it now."""


class SecretUnavailable(LaunchOpsError):
    """A launch needs a secret its file gave (never journaled), and the file cannot give it
    again as it was: the launch stays where it is until the file is back."""


class PrefectUnavailable(LaunchOpsError):
    """The Prefect API a command is configured with (PREFECT_API_URL) does not answer:
    said before its flow starts, not as Prefect's traceback at the flow's first call."""


class FlowResultLost(LaunchOpsError):
    """A flow run ended, but the state Prefect's server answered for its end holds no
    result: the server already had one (a request retried after it had taken the first,
    under load) and kept its own. What the run did is in the journal."""


class JournalError(LaunchOpsError):
    """The journal refuses an operation (for example, a changed config under a key)."""


class ConfigChanged(JournalError):
    """A launch file changed under a key the journal knows: refused (exit 2), naming how to
    finish the launch as created and how to launch the edit as a new one."""


class JournalUnavailable(JournalError):
    """The journal's database did not answer (connection lost, locked): may pass."""

    transient = True


class LeaseError(LaunchOpsError):
    """Another worker has this launch."""


class LeaseHeld(LeaseError):
    """Another worker holds this launch's lease: this one does not start it."""


class LeaseLost(LeaseError):
    """Another worker took this launch over (our lease expired): stop touching it."""

    def __init__(self, key: str) -> None:
        super().__init__(f"launch {key}: taken over by another worker (this one's lease lapsed)")
        self.key = key


class StepTimedOut(LaunchOpsError):
    """A step of a launch did not end within the profile's `step_seconds`: stopped where it
    was (its journal state says where a re-run continues it)."""


class BlockhashExpired(LaunchOpsError):
    """Nothing of an attempt landed and its blockhash is provably dead: create again.

    Raised by the runner, not by the submit step: the step did its work (it found out and
    journaled it), so its Prefect task run completes rather than showing as failed."""


class SandboxPortTaken(LaunchOpsError):
    """The sandbox profile's port is taken by something that is not serving its RPC URL."""


class SandboxUnavailable(LaunchOpsError):
    """The sandbox cannot start: its kept chain cannot be opened (not a database, a folder
    it cannot write), or its address cannot be bound for another reason than a taken port."""


# ── inside the sandbox ──────────────────────────────────────────────────────


class SandboxRefusal(LaunchOpsError):
    """The sandbox refuses a request; it becomes the sandbox's HTTP or JSON-RPC answer."""


class LaunchRejected(SandboxRefusal):
    """A 400 of create or register: `error` for the envelope, `details` for its list."""

    def __init__(self, error: str, details: list[Any] | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.details = details or []  # launchops.api.models.ErrorDetail each


class LaunchForbidden(SandboxRefusal):
    """A 403 of create: the caller may not launch so (an agent its wallet does not own)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class RpcError(SandboxRefusal):
    """An error a JSON-RPC node answers with: code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
