"""What the sandbox's chain says of a transaction that failed: the node's JSON form of its
error, the words a node's message uses, and the -32002 preflight failure it answers."""

from __future__ import annotations

import json
from typing import Any

from solders.transaction_metadata import FailedTransactionMetadata

from launchops.errors import RpcError


def meta_of(meta: Any) -> tuple[list[str], int]:
    """Logs and compute units of a TransactionMetadata (accessors are methods in solders)."""
    return list(meta.logs()), int(meta.compute_units_consumed())


def err_json(result: FailedTransactionMetadata) -> Any:
    return json.loads(result.to_json())["err"]


_ERROR_TEXT = {
    "AccountNotFound": "Attempt to debit an account but found no record of a prior credit.",
    "BlockhashNotFound": "Blockhash not found",
    "AlreadyProcessed": "This transaction has already been processed",
    "InsufficientFundsForFee": "Insufficient funds for fee",
    "SignatureFailure": "Transaction did not pass signature verification",
    "ProgramAccountNotFound": "Attempt to load a program that does not exist",
    "InvalidProgramForExecution": "Attempt to load a program that does not exist",
}


def error_text(err: Any) -> str:
    """The node's Display text of a TransactionError given in its JSON form."""
    if isinstance(err, str):
        return _ERROR_TEXT.get(err, err)
    if isinstance(err, dict) and "InstructionError" in err:
        index, inner = err["InstructionError"]
        if isinstance(inner, dict) and "Custom" in inner:
            return (
                f"Error processing Instruction {index}: custom program error: {inner['Custom']:#x}"
            )
        return f"Error processing Instruction {index}: {inner}"
    if isinstance(err, dict) and "InsufficientFundsForRent" in err:
        index = err["InsufficientFundsForRent"].get("account_index")
        return f"Transaction results in an account ({index}) with insufficient funds for rent"
    return json.dumps(err)


def preflight_failure(err: Any, logs: list[str] | None = None, units: int = 0) -> RpcError:
    return RpcError(
        -32002,
        f"Transaction simulation failed: {error_text(err)}",
        {
            "accounts": None,
            "err": err,
            "innerInstructions": None,
            "logs": logs or [],
            "replacementBlockhash": None,
            "returnData": None,
            "unitsConsumed": units,
        },
    )
