%define api.pure full
%%
program: %empty ;
%%
