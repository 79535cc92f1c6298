/* Las Vegan, random policy at every seat: the jitted core's game loop in C.
 *
 * A yardstick for the speed of sim/lasvegan/nb.py, not part of the package:
 * bench/bench_c.py compiles it with `cc -O2` and compares games per second
 * with the jitted core's in the same run, then checks that both produced the
 * same records. Same rules, same order of events and draws as
 * docs/engine.md, same random streams as sim/rng.py.
 *
 * Usage: lasvegan SEED FIRST_GAME N_GAMES OUT_FILE < rules
 * where `rules` is whitespace-separated integers: the 9 numbers of
 * Rules.kernel_rules() (players, rounds, starting, reserve, reserve mode,
 * end on elimination, set aside, set aside revealed, payout order), then the
 * number of machines and their codes, the number of tokens and their two
 * faces each, the golden token's two faces, and the cabbages each seat
 * starts with.
 * Prints the seconds the games took (allocation of the records included,
 * reading the rules and writing the file excluded); writes every record
 * field, in the order of records.RECORD_FIELDS, to OUT_FILE ("-" for none).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;
typedef int64_t i64;

/* enums.py */
#define N_SUITS 4
#define N_CARDS 40
#define SEVEN 7
#define MAX_PLAYERS 5
#define MACHINES_PER_ROUND 3
#define MAX_TOKENS 8
#define MAX_MACHINES 64
#define POINTS_BASE 10
#define GOLDEN_SLOT 3
#define N_SLOTS 4
#define NO_SIDE (-1)
#define MIN_SIDE 0
#define KIND_COLOUR 0
#define KIND_POINTS 1
#define KIND_GOLDEN 2
#define N_KINDS 3
#define STREAM_TABLE 0
#define STREAM_POLICY 1
#define RESERVE_FINITE 0
#define PAYOUT_NEXT_LEADER 0

enum {
    P_PLAYERS = 0, P_ROUND, P_ROUNDS, P_ROUND_LEADER, P_TRICK_LEADER, P_TRICK_LEN, P_TRICK_NUMBER,
    P_PLAYED, P_N_TOKENS, P_GOLDEN_VALUE, P_GOLDEN_SIDE, P_GOLDEN_PLACER, P_SET_ASIDE, P_N_SET_ASIDE,
    P_RESERVE, P_STARTING, P_END_ON_ELIMINATION, P_TRICK_CARDS,
    P_WON = P_TRICK_CARDS + MAX_PLAYERS,
    P_TRICKS = P_WON + MAX_PLAYERS,
    P_VOIDS = P_TRICKS + MAX_PLAYERS,
    P_CABBAGES = P_VOIDS + MAX_PLAYERS,
    P_HAND_SIZE = P_CABBAGES + MAX_PLAYERS,
    P_MACHINES = P_HAND_SIZE + MAX_PLAYERS,
    P_MACHINE_TOKEN = P_MACHINES + MACHINES_PER_ROUND,
    P_MACHINE_PLACER = P_MACHINE_TOKEN + MACHINES_PER_ROUND,
    P_TOKEN_VALUE = P_MACHINE_PLACER + MACHINES_PER_ROUND,
    P_TOKEN_PLACED = P_TOKEN_VALUE + MAX_TOKENS,
    P_PAYOUT_ORDER = P_TOKEN_PLACED + MAX_TOKENS,
    PUB_SIZE
};

enum { S_PLAYERS, S_ROUNDS, S_STARTING, S_RESERVE, S_RESERVE_MODE, S_END_ON_ELIM,
       S_N_SET_ASIDE, S_SET_ASIDE_REVEALED, S_PAYOUT_ORDER, N_SCALARS };

static u64 SUIT_MASK[N_SUITS];
static u64 VALUE_MASK[10];

/* --- sim/rng.py ---------------------------------------------------------- */

#define GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL

static inline u64 mix(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }

static void seed_stream(u64 *state, u64 seed, u64 game, u64 stream) {
    u64 k = mix(seed + GOLDEN_GAMMA);
    k = mix((k ^ game) + GOLDEN_GAMMA);
    u64 x = mix((k ^ stream) + GOLDEN_GAMMA);
    for (int i = 0; i < 4; i++) {
        x += GOLDEN_GAMMA;
        state[i] = mix(x);
    }
}

static inline u64 next(u64 *s) {
    u64 result = rotl(s[1] * 5, 7) * 9;
    u64 t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

static inline i64 below(u64 *s, i64 n) { return (i64)(((next(s) >> 32) * (u64)n) >> 32); }
static inline i64 coin(u64 *s) { return (i64)(next(s) >> 63); }

static void shuffle(u64 *s, i64 *items, i64 n) {
    for (i64 i = n - 1; i > 0; i--) {
        i64 j = below(s, i + 1);
        i64 tmp = items[i];
        items[i] = items[j];
        items[j] = tmp;
    }
}

/* --- mechanics.py -------------------------------------------------------- */

static inline i64 popcount(u64 x) { return __builtin_popcountll(x); }

static inline i64 nth_bit(u64 x, i64 n) {
    for (i64 i = 0; i < n; i++) x &= x - 1;
    return __builtin_ctzll(x);
}

static inline u64 legal_cards(u64 hand, i64 led_suit) {
    if (led_suit < 0) return hand;
    u64 follow = hand & SUIT_MASK[led_suit];
    return follow ? follow : hand;
}

static inline i64 trick_winner(const i64 *cards, i64 n) {
    i64 led = cards[0] / 10, best = 0, best_value = cards[0] % 10, zero = -1;
    for (i64 i = 1; i < n; i++) {
        i64 suit = cards[i] / 10, value = cards[i] % 10;
        if (suit != led) {
            if (value == 0) zero = i;
        } else if (value > best_value) {
            best = i;
            best_value = value;
        }
    }
    return zero >= 0 ? zero : best;
}

static inline i64 machine_amount(i64 sticker, i64 value, u64 won) {
    if (sticker < POINTS_BASE) return value * (popcount(won & SUIT_MASK[sticker]) / 3);
    return value * popcount(won & VALUE_MASK[sticker - POINTS_BASE]);
}

static inline int free_slot(const i64 *pub, int slot) {
    if (slot == GOLDEN_SLOT) return pub[P_GOLDEN_SIDE] == NO_SIDE;
    if (pub[P_MACHINE_TOKEN + slot] >= 0) return 0;
    for (i64 t = 0; t < pub[P_N_TOKENS]; t++)
        if (pub[P_TOKEN_PLACED + t] == 0) return 1;
    return 0;
}

static inline int any_free_slot(const i64 *pub) {
    for (int slot = 0; slot < N_SLOTS; slot++)
        if (free_slot(pub, slot)) return 1;
    return 0;
}

static void start_round(i64 *pub, i64 round, i64 leader, i64 golden_value, u64 shown, i64 reserve,
                        const i64 *cabbages, i64 hand_size) {
    pub[P_ROUND] = round;
    pub[P_ROUND_LEADER] = leader;
    pub[P_TRICK_LEADER] = leader;
    pub[P_TRICK_NUMBER] = 0;
    pub[P_TRICK_LEN] = 0;
    pub[P_PLAYED] = 0;
    pub[P_GOLDEN_VALUE] = golden_value;
    pub[P_GOLDEN_SIDE] = NO_SIDE;
    pub[P_GOLDEN_PLACER] = -1;
    pub[P_SET_ASIDE] = (i64)shown;
    pub[P_RESERVE] = reserve;
    for (int m = 0; m < MACHINES_PER_ROUND; m++) {
        pub[P_MACHINE_TOKEN + m] = -1;
        pub[P_MACHINE_PLACER + m] = -1;
    }
    for (i64 t = 0; t < pub[P_N_TOKENS]; t++) pub[P_TOKEN_PLACED + t] = 0;
    for (i64 s = 0; s < pub[P_PLAYERS]; s++) {
        pub[P_WON + s] = 0;
        pub[P_TRICKS + s] = 0;
        pub[P_VOIDS + s] = 0;
        pub[P_CABBAGES + s] = cabbages[s];
        pub[P_HAND_SIZE + s] = hand_size;
    }
}

static inline i64 seat_to_move(const i64 *pub) {
    return (pub[P_TRICK_LEADER] + pub[P_TRICK_LEN]) % pub[P_PLAYERS];
}

static inline i64 led_suit(const i64 *pub) {
    return pub[P_TRICK_LEN] == 0 ? -1 : pub[P_TRICK_CARDS] / 10;
}

static inline void play_card(i64 *pub, u64 *hands, i64 seat, i64 card) {
    i64 led = led_suit(pub);
    if (led >= 0 && card / 10 != led) pub[P_VOIDS + seat] |= (i64)1 << led;
    u64 b = (u64)1 << card;
    hands[seat] &= ~b;
    i64 k = pub[P_TRICK_LEN];
    pub[P_TRICK_CARDS + k] = card;
    pub[P_TRICK_LEN] = k + 1;
    pub[P_PLAYED] |= (i64)b;
    pub[P_HAND_SIZE + seat] -= 1;
}

static inline void gather_trick(i64 *pub, i64 *winner_out, i64 *sevens_out) {
    i64 players = pub[P_PLAYERS], leader = pub[P_TRICK_LEADER];
    const i64 *cards = pub + P_TRICK_CARDS;
    i64 winner = (leader + trick_winner(cards, players)) % players;
    i64 mask = 0, sevens = 0;
    for (i64 i = 0; i < players; i++) {
        mask |= (i64)1 << cards[i];
        if (cards[i] % 10 == SEVEN) sevens++;
    }
    pub[P_WON + winner] |= mask;
    pub[P_TRICKS + winner] += 1;
    pub[P_TRICK_LEADER] = winner;
    pub[P_TRICK_LEN] = 0;
    pub[P_TRICK_NUMBER] += 1;
    *winner_out = winner;
    *sevens_out = sevens;
}

static inline int place_token(i64 *pub, i64 seat, const i64 *placement) {
    i64 slot = placement[0];
    if (slot < 0) return 0;
    if (slot == GOLDEN_SLOT) {
        pub[P_GOLDEN_SIDE] = placement[2];
        pub[P_GOLDEN_PLACER] = seat;
    } else {
        i64 t = placement[1];
        pub[P_MACHINE_TOKEN + slot] = t;
        pub[P_MACHINE_PLACER + slot] = seat;
        pub[P_TOKEN_PLACED + t] = 1;
    }
    return 1;
}

static void round_amounts(const i64 *pub, i64 amount[N_SLOTS][MAX_PLAYERS]) {
    i64 players = pub[P_PLAYERS];
    memset(amount, 0, sizeof(i64) * N_SLOTS * MAX_PLAYERS);
    for (int m = 0; m < MACHINES_PER_ROUND; m++) {
        i64 t = pub[P_MACHINE_TOKEN + m];
        if (t < 0) continue;
        i64 value = pub[P_TOKEN_VALUE + t], sticker = pub[P_MACHINES + m];
        for (i64 s = 0; s < players; s++) amount[m][s] = machine_amount(sticker, value, (u64)pub[P_WON + s]);
    }
    i64 side = pub[P_GOLDEN_SIDE];
    if (side != NO_SIDE) {
        const i64 *tricks = pub + P_TRICKS;
        i64 target = tricks[0];
        for (i64 s = 1; s < players; s++) {
            if (side == MIN_SIDE) target = tricks[s] < target ? tricks[s] : target;
            else target = tricks[s] > target ? tricks[s] : target;
        }
        for (i64 s = 0; s < players; s++)
            if (tricks[s] == target) amount[GOLDEN_SLOT][s] = -pub[P_GOLDEN_VALUE];
    }
}

static i64 settle(i64 *cabbages, const i64 *net, i64 players, i64 *reserve, int finite, i64 first_payee) {
    for (i64 s = 0; s < players; s++) {
        if (net[s] < 0) {
            i64 pay = -net[s] < cabbages[s] ? -net[s] : cabbages[s];
            cabbages[s] -= pay;
            if (finite) *reserve += pay;
        }
    }
    i64 shortfall = 0;
    for (i64 k = 0; k < players; k++) {
        i64 s = (first_payee + k) % players;
        if (net[s] > 0) {
            i64 gain = net[s];
            if (finite) {
                gain = gain < *reserve ? gain : *reserve;
                *reserve -= gain;
            }
            cabbages[s] += gain;
            shortfall += net[s] - gain;
        }
    }
    return shortfall;
}

/* --- policies.py: random -------------------------------------------------- */

static inline i64 random_card(u64 legal, u64 *rng) { return nth_bit(legal, below(rng, popcount(legal))); }

static void random_placement(const i64 *pub, u64 *rng, i64 *out) {
    i64 n_free = 0;
    for (int slot = 0; slot < N_SLOTS; slot++) n_free += free_slot(pub, slot);
    out[0] = -1;
    out[1] = -1;
    out[2] = NO_SIDE;
    if (n_free == 0) return;
    i64 k = below(rng, n_free);
    for (int slot = 0; slot < N_SLOTS; slot++) {
        if (free_slot(pub, slot)) {
            if (k == 0) {
                out[0] = slot;
                break;
            }
            k--;
        }
    }
    if (out[0] == GOLDEN_SLOT) {
        out[2] = coin(rng);
        return;
    }
    i64 n_tokens = pub[P_N_TOKENS], unplaced = 0;
    for (i64 t = 0; t < n_tokens; t++) unplaced += pub[P_TOKEN_PLACED + t] == 0;
    k = below(rng, unplaced);
    for (i64 t = 0; t < n_tokens; t++) {
        if (pub[P_TOKEN_PLACED + t] == 0) {
            if (k == 0) {
                out[1] = t;
                break;
            }
            k--;
        }
    }
}

/* --- records.py ------------------------------------------------------------ */

typedef struct {
    i64 *game;
    int16_t *final_cabbages;
    double *win_share;
    int8_t *rounds_played, *elim_round;
    int32_t *reserve_end;
    int8_t *seven_no_slot, *zero_playing_on, *round_leader;
    int16_t *delta;
    int8_t *tricks;
    int16_t *amount, *shortfall;
    int8_t *machine, *machine_token, *machine_value, *machine_placer, *golden_side, *golden_value,
        *golden_placer;
} Records;

static void *filled(size_t n, size_t size, int minus_one) {
    void *p = malloc(n * size > 0 ? n * size : 1);
    if (!p) {
        perror("malloc");
        exit(1);
    }
    memset(p, minus_one ? 0xff : 0, n * size);
    return p;
}

static void empty_records(Records *r, size_t n, size_t P, size_t R) {
    size_t M = MACHINES_PER_ROUND;
    r->game = filled(n, 8, 0);
    r->final_cabbages = filled(n * P, 2, 0);
    r->win_share = filled(n * P, 8, 0);
    r->rounds_played = filled(n, 1, 0);
    r->elim_round = filled(n, 1, 0);
    r->reserve_end = filled(n, 4, 0);
    r->seven_no_slot = filled(n, 1, 0);
    r->zero_playing_on = filled(n, 1, 0);
    r->round_leader = filled(n * R, 1, 1);
    r->delta = filled(n * R * P, 2, 0);
    r->tricks = filled(n * R * P, 1, 0);
    r->amount = filled(n * R * N_KINDS * P, 2, 0);
    r->shortfall = filled(n * R, 2, 0);
    r->machine = filled(n * R * M, 1, 1);
    r->machine_token = filled(n * R * M, 1, 1);
    r->machine_value = filled(n * R * M, 1, 0);
    r->machine_placer = filled(n * R * M, 1, 1);
    r->golden_side = filled(n * R, 1, 1);
    r->golden_value = filled(n * R, 1, 0);
    r->golden_placer = filled(n * R, 1, 1);
}

static void write_records(FILE *f, const Records *r, size_t n, size_t P, size_t R) {
    size_t M = MACHINES_PER_ROUND;
    fwrite(r->game, 8, n, f);
    fwrite(r->final_cabbages, 2, n * P, f);
    fwrite(r->win_share, 8, n * P, f);
    fwrite(r->rounds_played, 1, n, f);
    fwrite(r->elim_round, 1, n, f);
    fwrite(r->reserve_end, 4, n, f);
    fwrite(r->seven_no_slot, 1, n, f);
    fwrite(r->zero_playing_on, 1, n, f);
    fwrite(r->round_leader, 1, n * R, f);
    fwrite(r->delta, 2, n * R * P, f);
    fwrite(r->tricks, 1, n * R * P, f);
    fwrite(r->amount, 2, n * R * N_KINDS * P, f);
    fwrite(r->shortfall, 2, n * R, f);
    fwrite(r->machine, 1, n * R * M, f);
    fwrite(r->machine_token, 1, n * R * M, f);
    fwrite(r->machine_value, 1, n * R * M, f);
    fwrite(r->machine_placer, 1, n * R * M, f);
    fwrite(r->golden_side, 1, n * R, f);
    fwrite(r->golden_value, 1, n * R, f);
    fwrite(r->golden_placer, 1, n * R, f);
}

/* --- nb.py: one game -------------------------------------------------------- */

typedef struct {
    i64 scalars[N_SCALARS];
    i64 n_machines, machines[MAX_MACHINES];
    i64 n_tokens, tokens[MAX_TOKENS][2];
    i64 golden[2];
    i64 seat_starting[MAX_PLAYERS];
} RulesArgs;

static void play_game(u64 seed, i64 game, size_t i, const RulesArgs *a, Records *o) {
    const i64 *sc = a->scalars;
    i64 players = sc[S_PLAYERS], rounds = sc[S_ROUNDS];
    int finite = sc[S_RESERVE_MODE] == RESERVE_FINITE, end_on_elim = sc[S_END_ON_ELIM] != 0;
    i64 n_set_aside = sc[S_N_SET_ASIDE], hand_size = (N_CARDS - n_set_aside) / players;
    i64 n_tokens = a->n_tokens, n_machines = a->n_machines;
    size_t P = players, R = rounds, M = MACHINES_PER_ROUND;

    u64 table_rng[4], seat_rngs[MAX_PLAYERS][4], hands[MAX_PLAYERS];
    i64 pub[PUB_SIZE], pile[MAX_MACHINES], deck[N_CARDS], placement[3];
    i64 cabbages[MAX_PLAYERS], net[MAX_PLAYERS], amount[N_SLOTS][MAX_PLAYERS];

    seed_stream(table_rng, seed, game, STREAM_TABLE);
    for (i64 s = 0; s < players; s++) seed_stream(seat_rngs[s], seed, game, STREAM_POLICY + s);
    for (i64 m = 0; m < n_machines; m++) pile[m] = a->machines[m];
    shuffle(table_rng, pile, n_machines);
    for (i64 s = 0; s < players; s++) cabbages[s] = a->seat_starting[s];
    i64 reserve = sc[S_RESERVE];

    memset(pub, 0, sizeof pub);
    pub[P_PLAYERS] = players;
    pub[P_ROUNDS] = rounds;
    pub[P_N_TOKENS] = n_tokens;
    pub[P_N_SET_ASIDE] = n_set_aside;
    pub[P_STARTING] = sc[S_STARTING];
    pub[P_END_ON_ELIMINATION] = sc[S_END_ON_ELIM];
    pub[P_PAYOUT_ORDER] = sc[S_PAYOUT_ORDER];

    o->game[i] = game;
    i64 leader = 0, seven_no_slot = 0, zero_on = 0, elim_round = 0, rounds_played = 0;
    for (i64 r = 0; r < rounds; r++) {
        rounds_played = r + 1;
        for (i64 s = 0; s < players; s++) zero_on += cabbages[s] == 0;
        o->round_leader[i * R + r] = (int8_t)leader;

        for (size_t m = 0; m < M; m++) {
            i64 sticker = pile[M * r + m];
            o->machine[(i * R + r) * M + m] = (int8_t)sticker;
            pub[P_MACHINES + m] = sticker;
        }
        for (i64 t = 0; t < n_tokens; t++) pub[P_TOKEN_VALUE + t] = a->tokens[t][coin(table_rng)];
        i64 golden_value = a->golden[coin(table_rng)];
        o->golden_value[i * R + r] = (int8_t)golden_value;
        for (i64 c = 0; c < N_CARDS; c++) deck[c] = c;
        shuffle(table_rng, deck, N_CARDS);
        for (i64 s = 0; s < players; s++) {
            u64 h = 0;
            for (i64 j = s * hand_size; j < (s + 1) * hand_size; j++) h |= (u64)1 << deck[j];
            hands[s] = h;
        }
        u64 set_aside = 0;
        for (i64 j = players * hand_size; j < N_CARDS; j++) set_aside |= (u64)1 << deck[j];
        u64 shown = sc[S_SET_ASIDE_REVEALED] ? set_aside : 0;
        start_round(pub, r, leader, golden_value, shown, reserve, cabbages, hand_size);

        for (i64 trick = 0; trick < hand_size; trick++) {
            for (i64 turn = 0; turn < players; turn++) {
                i64 s = seat_to_move(pub);
                u64 legal = legal_cards(hands[s], led_suit(pub));
                play_card(pub, hands, s, random_card(legal, seat_rngs[s]));
            }
            i64 winner, sevens;
            gather_trick(pub, &winner, &sevens);
            for (i64 k = 0; k < sevens; k++) {
                if (!any_free_slot(pub)) {
                    seven_no_slot++;
                    continue;
                }
                random_placement(pub, seat_rngs[winner], placement);
                if (!place_token(pub, winner, placement)) seven_no_slot++;
            }
        }
        i64 trick_leader = pub[P_TRICK_LEADER];

        round_amounts(pub, amount);
        for (i64 s = 0; s < players; s++) net[s] = 0;
        for (size_t m = 0; m < M; m++) {
            size_t rm = (i * R + r) * M + m;
            i64 t = pub[P_MACHINE_TOKEN + m];
            o->machine_token[rm] = (int8_t)t;
            o->machine_placer[rm] = (int8_t)pub[P_MACHINE_PLACER + m];
            if (t < 0) continue;
            o->machine_value[rm] = (int8_t)pub[P_TOKEN_VALUE + t];
            int kind = pub[P_MACHINES + m] < POINTS_BASE ? KIND_COLOUR : KIND_POINTS;
            for (i64 s = 0; s < players; s++) {
                o->amount[((i * R + r) * N_KINDS + kind) * P + s] += (int16_t)amount[m][s];
                net[s] += amount[m][s];
            }
        }
        o->golden_side[i * R + r] = (int8_t)pub[P_GOLDEN_SIDE];
        o->golden_placer[i * R + r] = (int8_t)pub[P_GOLDEN_PLACER];
        for (i64 s = 0; s < players; s++) {
            o->amount[((i * R + r) * N_KINDS + KIND_GOLDEN) * P + s] = (int16_t)amount[GOLDEN_SLOT][s];
            net[s] += amount[GOLDEN_SLOT][s];
            o->tricks[(i * R + r) * P + s] = (int8_t)pub[P_TRICKS + s];
        }

        i64 before[MAX_PLAYERS];
        for (i64 s = 0; s < players; s++) before[s] = cabbages[s];
        i64 first_payee = sc[S_PAYOUT_ORDER] == PAYOUT_NEXT_LEADER ? trick_leader : 0;
        o->shortfall[i * R + r] = (int16_t)settle(cabbages, net, players, &reserve, finite, first_payee);
        int any_zero = 0;
        for (i64 s = 0; s < players; s++) {
            o->delta[(i * R + r) * P + s] = (int16_t)(cabbages[s] - before[s]);
            any_zero |= cabbages[s] == 0;
        }
        leader = trick_leader;
        if (any_zero && elim_round == 0) elim_round = r + 1;
        if (any_zero && end_on_elim) break;
    }

    i64 best = cabbages[0];
    for (i64 s = 1; s < players; s++) best = cabbages[s] > best ? cabbages[s] : best;
    i64 n_best = 0;
    for (i64 s = 0; s < players; s++) n_best += cabbages[s] == best;
    for (i64 s = 0; s < players; s++) {
        o->final_cabbages[i * P + s] = (int16_t)cabbages[s];
        o->win_share[i * P + s] = cabbages[s] == best ? 1.0 / (double)n_best : 0.0;
    }
    o->rounds_played[i] = (int8_t)rounds_played;
    o->elim_round[i] = (int8_t)elim_round;
    o->reserve_end[i] = (int32_t)reserve;
    o->seven_no_slot[i] = (int8_t)seven_no_slot;
    o->zero_playing_on[i] = (int8_t)zero_on;
}

static i64 read_int(void) {
    long long v;
    if (scanf("%lld", &v) != 1) {
        fprintf(stderr, "lasvegan: the rules on stdin end too early\n");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s SEED FIRST_GAME N_GAMES OUT_FILE < rules\n", argv[0]);
        return 2;
    }
    u64 seed = strtoull(argv[1], NULL, 10);
    i64 first_game = strtoll(argv[2], NULL, 10), n_games = strtoll(argv[3], NULL, 10);

    for (int s = 0; s < N_SUITS; s++) SUIT_MASK[s] = ((1ULL << 10) - 1) << (10 * s);
    for (int k = 0; k < 10; k++) {
        VALUE_MASK[k] = 0;
        for (int s = 0; s < N_SUITS; s++) VALUE_MASK[k] |= 1ULL << (s * 10 + k);
    }

    RulesArgs a;
    for (int k = 0; k < N_SCALARS; k++) a.scalars[k] = read_int();
    a.n_machines = read_int();
    if (a.n_machines < 0 || a.n_machines > MAX_MACHINES) return 2;
    for (i64 m = 0; m < a.n_machines; m++) a.machines[m] = read_int();
    a.n_tokens = read_int();
    if (a.n_tokens < 0 || a.n_tokens > MAX_TOKENS) return 2;
    for (i64 t = 0; t < a.n_tokens; t++) {
        a.tokens[t][0] = read_int();
        a.tokens[t][1] = read_int();
    }
    a.golden[0] = read_int();
    a.golden[1] = read_int();
    if (a.scalars[S_PLAYERS] < 1 || a.scalars[S_PLAYERS] > MAX_PLAYERS) return 2;
    for (i64 s = 0; s < a.scalars[S_PLAYERS]; s++) a.seat_starting[s] = read_int();

    size_t P = a.scalars[S_PLAYERS], R = a.scalars[S_ROUNDS];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    Records rec;
    empty_records(&rec, n_games, P, R);
    for (i64 i = 0; i < n_games; i++) play_game(seed, first_game + i, i, &a, &rec);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.9f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));

    if (strcmp(argv[4], "-") != 0) {
        FILE *f = fopen(argv[4], "wb");
        if (!f) {
            perror(argv[4]);
            return 1;
        }
        write_records(f, &rec, n_games, P, R);
        fclose(f);
    }
    return 0;
}
