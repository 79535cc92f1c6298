"""Every registered game answers the suite's questions: a game without them fails by name."""

from tests.conformance.conftest import hooks


def test_the_game_names_its_conformance_hooks(game):
    hooks(game)


def test_cheap_forms_cover_every_policy_and_parse(game):
    h = hooks(game)
    assert set(h.POLICY_FORMS) == set(game.policy_syntax), "a policy without a cheap form is never checked"
    for policy, forms in h.POLICY_FORMS.items():
        assert forms, policy
        for form in forms:
            assert form.split(":")[0] == policy or policy == "epsilon", form
            game.parse_policy(form, "policies.seats")
