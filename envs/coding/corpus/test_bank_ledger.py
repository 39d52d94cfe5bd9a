import pytest

from bank_ledger import Account, InsufficientFunds, total_balance, transfer

VISIBLE = ["test_deposit", "test_withdraw_within_balance", "test_transfer"]


def test_new_account():
    account = Account("ann")
    assert account.balance == 0
    assert account.transactions == []
    assert account.available() == 0
    with pytest.raises(ValueError):
        Account("bob", overdraft_limit=-1)


def test_deposit():
    account = Account("ann")
    assert account.deposit(500) == 500
    assert account.deposit(1) == 501
    assert account.transactions == [("deposit", 500, 500), ("deposit", 1, 501)]


def test_deposit_must_be_positive():
    account = Account("ann")
    for bad in [0, -5]:
        with pytest.raises(ValueError):
            account.deposit(bad)
    assert account.transactions == []


def test_withdraw_within_balance():
    account = Account("ann")
    account.deposit(1000)
    assert account.withdraw(400) == 600
    assert account.withdraw(600) == 0
    assert account.transactions[-1] == ("withdrawal", 600, 0)


def test_withdraw_errors():
    account = Account("ann")
    account.deposit(100)
    with pytest.raises(InsufficientFunds, match="available 100"):
        account.withdraw(101)
    with pytest.raises(ValueError):
        account.withdraw(0)
    assert account.balance == 100


def test_overdraft():
    account = Account("ann", overdraft_limit=50)
    account.deposit(100)
    assert account.available() == 150
    assert account.withdraw(150) == -50
    assert account.available() == 0
    with pytest.raises(InsufficientFunds):
        account.withdraw(1)


def test_interest_on_positive_balance():
    account = Account("ann")
    account.deposit(100_000)
    assert account.apply_interest(5, 365) == 5000
    assert account.balance == 105_000
    assert account.transactions[-1] == ("interest", 5000, 105_000)


def test_interest_rounding_and_zero():
    account = Account("ann")
    account.deposit(1000)
    assert account.apply_interest(1, 30) == 1
    assert account.balance == 1001
    assert account.apply_interest(1, 1) == 0
    assert len(account.transactions) == 2
    assert account.apply_interest(3, 6) == 0
    assert account.apply_interest(3, 7) == 1


def test_interest_on_overdraft():
    account = Account("ann", overdraft_limit=10_000)
    account.withdraw(10_000)
    assert account.apply_interest(10, 73) == -200
    assert account.balance == -10_200
    assert account.apply_interest(10, 36, year_days=360) == -102


def test_transfer():
    a, b = Account("a"), Account("b")
    a.deposit(300)
    transfer(a, b, 120)
    assert (a.balance, b.balance) == (180, 120)
    assert total_balance([a, b]) == 300


def test_failed_transfer_changes_nothing():
    a, b = Account("a"), Account("b")
    a.deposit(50)
    with pytest.raises(InsufficientFunds):
        transfer(a, b, 60)
    assert (a.balance, b.balance) == (50, 0)
    assert b.transactions == []
    with pytest.raises(ValueError):
        transfer(a, a, 10)
    assert a.balance == 50


def test_statement():
    account = Account("ann", overdraft_limit=100)
    account.deposit(250)
    account.withdraw(300)
    assert account.statement() == [
        "deposit        +250      250",
        "withdrawal     -300      -50",
    ]
    assert total_balance([]) == 0
