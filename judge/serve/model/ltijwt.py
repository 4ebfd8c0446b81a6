"""JSON Web Tokens and keys for LTI 1.3 (issue 48): PyJWT signs and checks the RS256 signature; what the claims
must say is ``model/lti.py``'s. Only RS256 is accepted (never ``none``, never HMAC: a platform's public key must not
become a shared secret). Pure: keys and tokens in, keys and tokens out."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from judge.serve.model.errors import Refused

ALGORITHM = "RS256"


def new_private_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def private_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def load_private(pem: bytes) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("not an RSA private key")
    return key


def public_jwk(key: rsa.RSAPublicKey) -> dict[str, Any]:
    """The public key as a JWK with its ``kid`` (the RFC 7638 thumbprint), ``alg`` and ``use``."""
    jwk = json.loads(RSAAlgorithm.to_jwk(key))
    core = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
    kid = base64.urlsafe_b64encode(hashlib.sha256(core.encode()).digest()).rstrip(b"=").decode()
    return {"kty": "RSA", "e": jwk["e"], "n": jwk["n"], "kid": kid, "alg": ALGORITHM, "use": "sig"}


def sign(claims: Mapping[str, Any], key: rsa.RSAPrivateKey, kid: str) -> str:
    return jwt.encode(dict(claims), key, algorithm=ALGORITHM, headers={"kid": kid, "typ": "JWT"})


def header_kid(token: str) -> str | None:
    """The token's ``kid`` (before any check); refused when the token is not a JWT or not RS256."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise Refused(400, "LTI launch refused: the id_token is not a JWT") from None
    if header.get("alg") != ALGORITHM:
        alg = str(header.get("alg"))[:10]
        raise Refused(401, f"LTI launch refused: the id_token is signed with {alg!r}, not RS256")
    kid = header.get("kid")
    return kid if isinstance(kid, str) else None


def key_of(jwks: Mapping[str, Any], kid: str | None) -> Any:
    """The public key of ``kid`` in a JWKS document (None when it has none: the caller fetches the set again)."""
    keys = jwks.get("keys") if isinstance(jwks, Mapping) else None
    for k in keys if isinstance(keys, list) else []:
        if not isinstance(k, Mapping) or k.get("kty") != "RSA":
            continue
        if kid is None or k.get("kid") == kid:
            try:
                return RSAAlgorithm.from_jwk(json.dumps(dict(k)))
            except (jwt.PyJWTError, ValueError, TypeError, KeyError):
                continue
    return None


def verified_claims(token: str, public_key: Any) -> dict[str, Any]:
    """The claims of ``token`` once its RS256 signature checks with ``public_key``; nothing else is checked here
    (model/lti.check_launch checks the claims). Raises Refused (401)."""
    try:
        claims = jwt.decode(
            token,
            public_key,
            algorithms=[ALGORITHM],
            options={
                "verify_signature": True,
                "verify_aud": False,
                "verify_exp": False,
                "verify_iat": False,
                "verify_nbf": False,
                "verify_iss": False,
                "require": [],
            },
        )
    except jwt.InvalidSignatureError:
        raise Refused(401, "LTI launch refused: the id_token's signature does not match the platform's key") from None
    except jwt.PyJWTError:
        raise Refused(400, "LTI launch refused: the id_token cannot be read") from None
    if not isinstance(claims, dict):
        raise Refused(400, "LTI launch refused: the id_token's claims are not an object")
    return claims
