"""pytest fixtures of the driver suites; what they rest on is in support.py."""

import pytest

from support import WRITE_KEYS_FROM, Endpoint, Environment, Target, delete_written_rows, environment, make_target


@pytest.fixture(scope="session")
def env() -> Environment:
    return environment()


@pytest.fixture
def target(request) -> Target:
    """Parametrize with @pytest.mark.parametrize("target", [...], indirect=True)."""
    return make_target(request.param)


@pytest.fixture
def reference(env) -> Endpoint:
    return env.reference


@pytest.fixture
def written_rows(env):
    """Deletes every row with order_id >= WRITE_KEYS_FROM from every backend table before and after the test."""
    delete_written_rows(env)
    yield WRITE_KEYS_FROM
    delete_written_rows(env)
