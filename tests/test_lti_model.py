"""LTI 1.3's pure parts (issue 48, serve/model/lti.py): the roles a launch's LIS roles make, and the roster id an
LMS user gets (a Hypothesis property: always a valid id, never one already mapped to another LMS user)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from judge.course.values import valid_id
from judge.serve.model.lti import Kind, role_kind, student_id

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"


def test_roles() -> None:
    assert role_kind([MEMBERSHIP + "Learner"]) == Kind.STUDENT
    assert role_kind(["Learner"]) == Kind.STUDENT  # LTI 1.1's short names
    assert role_kind([MEMBERSHIP + "Instructor"]) == Kind.INSTRUCTOR
    assert role_kind(["http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"]) == Kind.TA
    assert role_kind([MEMBERSHIP + "Learner", MEMBERSHIP + "Instructor"]) == Kind.INSTRUCTOR  # the most
    assert role_kind(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"]) == Kind.INSTRUCTOR
    assert role_kind([MEMBERSHIP + "Mentor"]) is None and role_kind([]) is None and role_kind([3]) is None  # type: ignore[list-item]


def test_the_sis_id_then_the_email_then_the_sub() -> None:
    by_email = {"ada@example.edu": "s1"}
    assert student_id("i", "u1", "s0042", "ada@example.edu", by_email, set()) == "s0042"
    assert student_id("i", "u1", "", "Ada@Example.edu", by_email, set()) == "s1"
    assert student_id("i", "u1", "", "ada@example.edu", by_email, {"s1"}) == "lti-u1"  # s1 is someone else's
    assert student_id("i", "u1", "not an id!", "", {}, set()) == "lti-u1"
    long = "f" * 40
    made = student_id("i", long, "", "", {}, set())
    assert made.startswith("lti-") and len(made) == 36 and made == student_id("i", long, "", "", {}, set())
    assert made != student_id("other issuer", long, "", "", {}, set())


@given(
    sub=st.text(min_size=1, max_size=80),
    sourcedid=st.text(max_size=40),
    email=st.text(max_size=20),
    taken=st.sets(st.text(min_size=1, max_size=12), max_size=5),
)
def test_an_lms_user_always_gets_a_valid_id_never_one_taken(
    sub: str, sourcedid: str, email: str, taken: set[str]
) -> None:
    by_email = {email.strip().lower(): sourcedid} if email else {}
    taken = taken | {sourcedid, f"lti-{sub}"}
    found = student_id("https://lms.test", sub, sourcedid, email, by_email, taken)
    assert valid_id(found) and found not in taken
