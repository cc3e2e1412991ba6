"""What a provider's front answers instead of the service behind it, and the answer that
never comes: the pages nginx and a CDN send (byte for byte, `\\r\\n` line ends as nginx
writes its own pages), and the hold of a request, or a WebSocket handshake, that is
accepted and never answered until the caller gives up.

Used by the JSON-RPC faults (`rpc_faults`), PubSub (`pubsub_hang`) and the `/v1` API's
(`api_faults`).
"""

from __future__ import annotations

import asyncio
import contextlib

from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

# A held request is answered 504 after this long if its caller is still there.
HOLD_SECONDS = 600.0
# nginx's own error pages: `Content-Type: text/html`, no charset.
NGINX_MEDIA = "text/html"
CDN_MEDIA = "text/html; charset=UTF-8"
REASONS = {
    502: "Bad Gateway",
    503: "Service Temporarily Unavailable",
    504: "Gateway Time-out",
}


def nginx_page(status: int) -> str:
    """The error page nginx writes itself for `status` (ngx_http_special_response.c)."""
    title = f"{status} {REASONS[status]}"
    return (
        f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
        f"<center><h1>{title}</h1></center>\r\n"
        "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )


def nginx_response(status: int) -> Response:
    """nginx's page for `status`, with the headers nginx sends it with."""
    return Response(
        nginx_page(status),
        status_code=status,
        headers={"Content-Type": NGINX_MEDIA, "Server": "nginx"},
    )


def cdn_challenge_page(host: str, ray: str) -> str:
    """Cloudflare's "Just a moment..." browser check, as it answers a client that is not a
    browser: an HTML page where the JSON was expected."""
    lines = [
        "<!DOCTYPE HTML>",
        '<html lang="en-US">',
        "<head>",
        '  <meta charset="UTF-8" />',
        '  <meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />',
        '  <meta http-equiv="X-UA-Compatible" content="IE=Edge,chrome=1" />',
        '  <meta name="robots" content="noindex, nofollow" />',
        '  <meta name="viewport" content="width=device-width,initial-scale=1" />',
        "  <title>Just a moment...</title>",
        "</head>",
        "<body>",
        '  <table width="100%" height="100%" cellpadding="20">',
        "    <tr>",
        '      <td align="center" valign="middle">',
        '        <div class="cf-browser-verification cf-im-under-attack">',
        "          <noscript>",
        '            <h1 data-translate="turn_on_js" style="color:#bd2426;">Please turn '
        "JavaScript on and reload the page.</h1>",
        "          </noscript>",
        '          <div id="cf-content" style="display:none">',
        '            <h1><span data-translate="checking_browser">Checking your browser '
        f"before accessing</span> {host}.</h1>",
        '            <p data-translate="process_is_automatic">This process is automatic. '
        "Your browser will redirect to your requested content shortly.</p>",
        '            <p data-translate="allow_5_secs" id="cf-spinner-allow-5-secs">Please '
        "allow up to 5 seconds&hellip;</p>",
        "          </div>",
        "        </div>",
        '        <div class="attribution">',
        '          DDoS protection by <a rel="noopener noreferrer" '
        'href="https://www.cloudflare.com/5xx-error-landing/" target="_blank">Cloudflare</a>',
        "          <br />",
        f'          <span class="ray_id">Ray ID: <code>{ray}</code></span>',
        "        </div>",
        "      </td>",
        "    </tr>",
        "  </table>",
        "</body>",
        "</html>",
    ]
    return "\r\n".join(lines) + "\r\n"


def cdn_challenge_response(host: str, ray: str) -> Response:
    """The challenge page, HTTP 200, with the headers Cloudflare sends it with."""
    return Response(
        cdn_challenge_page(host, ray),
        status_code=200,
        headers={
            "Content-Type": CDN_MEDIA,
            "Server": "cloudflare",
            "CF-RAY": f"{ray}-IAD",
            "Cache-Control": "private, max-age=0, no-store, no-cache, must-revalidate",
        },
    )


async def hold(request: Request) -> Response:
    """Answer nothing until the caller goes away, at most HOLD_SECONDS; then nginx's 504,
    which only a caller still there reads.

    It waits for the server's `http.disconnect` rather than polling
    `request.is_disconnected()`: behind Starlette's `BaseHTTPMiddleware` (the app's
    `_faults_and_stats`) that poll's at-once-cancelled receive never sees the disconnect.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(HOLD_SECONDS):
            await _gone(request)
    return nginx_response(504)


async def _gone(request: Request) -> None:
    """Return once the caller is gone (a body not read yet is read and dropped)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def hold_socket(websocket: WebSocket) -> None:
    """Take a WebSocket's TCP connection and never complete its handshake (never accept):
    wait until the client goes away, at most HOLD_SECONDS."""
    with contextlib.suppress(TimeoutError, RuntimeError):
        await websocket.receive()  # the upgrade request itself
        async with asyncio.timeout(HOLD_SECONDS):
            await websocket.receive()  # its disconnect
