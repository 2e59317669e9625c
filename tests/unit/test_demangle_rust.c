/* tests/unit/test_demangle_rust.c: runtime/elf/demangle_rust.c against real Rust symbols.
 *
 * The table holds real names: from small programs built with rustc 1.95
 * (`rustc -O -g` and `-C symbol-mangling-version=v0`: generics, closures,
 * trait impls, const generics, HashMap, a punycode module) and from the
 * nightly toolchain's librustc_driver (dyn bounds with assoc bindings,
 * for<'a> fn pointers, extern "C" fns, shims, arrays). Each expected string
 * is what binutils 2.40 `c++filt -i` prints, which is rustfilt's form. Over
 * all 104,865 Rust names of librustc_driver the two agree except in the
 * cases of `divergent` below, where this demangler prints what rustfilt
 * prints. Then: names that are not Rust stay undemangled, and malformed
 * names (every truncation of every table name, random byte flips, deep
 * nesting, back reference loops and fan-outs) return NULL or a string, fast
 * and without a crash (best run under ASan/UBSan: -DSPROF_SANITIZE=ON).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/elf/demangle_rust.h"
#include "runtime/elf/demangle.h"
#include "runtime/elf/syms.h"
#include "tests/unit/check.h"

struct pair {
	const char *mangled, *want;
};

static const struct pair real[] = {
	{ "_RINvCs3JpXfVvpfaM_4feat12generic_ptrshEB2_",
	  "feat::generic_ptrs::<u8>" },
	{ "_RINvCs3JpXfVvpfaM_4feat3hofNCNvB2_4mains0_0EB2_",
	  "feat::hof::<feat::main::{closure#2}>" },
	{ "_RINvCs3JpXfVvpfaM_4feat3hofNCNvB2_4mains_0EB2_",
	  "feat::hof::<feat::main::{closure#1}>" },
	{ "_RINvCs3JpXfVvpfaM_4feat4monotEB2_",
	  "feat::mono::<u16>" },
	{ "_RINvMNtCsgEmfK2I1SDS_4core6optionINtB3_6OptionINtNtNtB5_3num7nonzero7NonZerojEE6map_orINtNtB5_6result6ResultuBI_ENcNtB1m_3Err0ECs3JpXfVvpfaM_4feat",
	  "<core::option::Option<core::num::nonzero::NonZero<usize>>>::map_or::<core::result::Result<(), core::num::nonzero::NonZero<usize>>, core::result::Result<(), core::num::nonzero::NonZero<usize>>::Err>" },
	{ "_RINvMNtNtCsgEmfK2I1SDS_4core3fmt2rtNtB3_8Argument11new_displaymECs3JpXfVvpfaM_4feat",
	  "<core::fmt::rt::Argument>::new_display::<u32>" },
	{ "_RINvMs0_NtNtCsqA4tdORF6E_10libloading2os4unixNtB6_7Library8get_implFUKCPaEuNCINvB2_18get_singlethreadedB13_RShE0B1H_ECs8CE5MOktPo1_18rustc_codegen_llvm",
	  "<libloading::os::unix::Library>::get_impl::<unsafe extern \"C\" fn(*const i8), <libloading::os::unix::Library>::get_singlethreaded<unsafe extern \"C\" fn(*const i8), &[u8]>::{closure#0}, &[u8]>" },
	{ "_RINvMs2_NtCsgEmfK2I1SDS_4core3fmtNtB6_9Arguments3newKj4_Kj1_ECs3JpXfVvpfaM_4feat",
	  "<core::fmt::Arguments>::new::<4, 1>" },
	{ "_RINvMs6_NtCsgvbsrvnw3yD_9hashbrown3rawINtB6_8RawTableTyyEE14reserve_rehashNCINvNtB8_3map11make_hasheryyNtNtNtCsjrHSEGnQ3l9_3std4hash6random11RandomStateE0ECs81nRMqtTsfS_3hot.llvm.12676024086093964725",
	  "<hashbrown::raw::RawTable<(u64, u64)>>::reserve_rehash::<hashbrown::map::make_hasher<u64, u64, std::hash::random::RandomState>::{closure#0}>" },
	{ "_RINvNtCs6AiuYGWa2VK_6ruzstd5frame17read_frame_headerQRShEB4_",
	  "ruzstd::frame::read_frame_header::<&mut &[u8]>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueINtNtCsbEht8wFNRx7_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsi4IsKQVxMg0_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2I_4SendEL_EEB1O_",
	  "core::ptr::drop_glue::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueINtNtCsbEht8wFNRx7_5alloc5boxed3BoxDINtNtNtB4_3ops8function6FnOnceuEp6OutputuNtNtB4_6marker4SendEL_EECsi4IsKQVxMg0_3std",
	  "core::ptr::drop_glue::<alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc3vec3VecINtNtBL_5boxed3BoxDNtCs81nRMqtTsfS_3hot5ShapeEL_EEEB1y_",
	  "core::ptr::drop_in_place::<alloc::vec::Vec<alloc::boxed::Box<dyn hot::Shape>>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc3vec3VechEECs3JpXfVvpfaM_4feat",
	  "core::ptr::drop_in_place::<alloc::vec::Vec<u8>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDNtCs81nRMqtTsfS_3hot5ShapeEL_EEB1i_.llvm.14271860481109245154",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn hot::Shape>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc7raw_vec6RawVechEECs3JpXfVvpfaM_4feat",
	  "core::ptr::drop_in_place::<alloc::raw_vec::RawVec<u8>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtNtCslNYArtu3iFV_5alloc3vec9into_iter8IntoIterhEECs3JpXfVvpfaM_4feat",
	  "core::ptr::drop_in_place::<alloc::vec::into_iter::IntoIter<u8>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtBP_8IntoIterppENtNtNtB4_3ops4drop4Drop4drop9DropGuardhNtNtBT_5alloc6GlobalEECs3JpXfVvpfaM_4feat",
	  "core::ptr::drop_in_place::<<alloc::vec::into_iter::IntoIter<_, _> as core::ops::drop::Drop>::drop::DropGuard<u8, alloc::alloc::Global>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtNtCslNYArtu3iFV_5alloc6string6StringECs3JpXfVvpfaM_4feat",
	  "core::ptr::drop_in_place::<alloc::string::String>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxNCNvCs3JpXfVvpfaM_4feat5outer0EBG_",
	  "core::hint::black_box::<feat::outer::{closure#0}>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxOThEECs3JpXfVvpfaM_4feat",
	  "core::hint::black_box::<*mut (u8,)>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxPhECs3JpXfVvpfaM_4feat",
	  "core::hint::black_box::<*const u8>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core4hint9black_boxRNCNCNvCs3JpXfVvpfaM_4feat5outer00EBJ_",
	  "core::hint::black_box::<&feat::outer::{closure#0}::{closure#0}>" },
	{ "_RINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuECs3JpXfVvpfaM_4feat",
	  "std::rt::lang_start::<()>" },
	{ "_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECs3JpXfVvpfaM_4feat",
	  "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>" },
	{ "_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECs81nRMqtTsfS_3hot",
	  "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>" },
	{ "_RINvXs0_NtNtNtCsgEmfK2I1SDS_4core4iter6traits8iteratorQDNtB6_8Iteratorp4ItemhEL_BS_4foldmNCINvNtNtBa_8adapters3map8map_foldhmmNCNvCs3JpXfVvpfaM_4feat8iter_dyn0NCINvXsy_NtB8_5accummNtB2G_3Sum3sumINtB1u_3MapBQ_B20_EE0E0EB24_",
	  "<&mut dyn core::iter::traits::iterator::Iterator<Item = u8> as core::iter::traits::iterator::Iterator>::fold::<u32, core::iter::adapters::map::map_fold<u8, u32, u32, feat::iter_dyn::{closure#0}, <u32 as core::iter::traits::accum::Sum>::sum<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>::{closure#0}>::{closure#0}>" },
	{ "_RINvXs0_NtNtNtCsgEmfK2I1SDS_4core4iter8adapters3mapINtB6_3MapQDNtNtNtBa_6traits8iterator8Iteratorp4ItemhEL_NCNvCs3JpXfVvpfaM_4feat8iter_dyn0EBZ_4foldmNCINvXsy_NtB13_5accummNtB2x_3Sum3sumBN_E0EB1L_",
	  "<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}> as core::iter::traits::iterator::Iterator>::fold::<u32, <u32 as core::iter::traits::accum::Sum>::sum<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>::{closure#0}>" },
	{ "_RINvXs1_NtNtNtCsgEmfK2I1SDS_4core4iter6traits8iteratorQDNtB6_8Iteratorp4ItemhEL_NtB6_15IteratorRefSpec9spec_foldmNCINvNtNtBa_8adapters3map8map_foldhmmNCNvCs3JpXfVvpfaM_4feat8iter_dyn0NCINvXsy_NtB8_5accummNtB34_3Sum3sumINtB1S_3MapBQ_B2o_EE0E0EB2s_",
	  "<&mut dyn core::iter::traits::iterator::Iterator<Item = u8> as core::iter::traits::iterator::IteratorRefSpec>::spec_fold::<u32, core::iter::adapters::map::map_fold<u8, u32, u32, feat::iter_dyn::{closure#0}, <u32 as core::iter::traits::accum::Sum>::sum<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>::{closure#0}>::{closure#0}>" },
	{ "_RINvXs_NvMNtCslNYArtu3iFV_5alloc5sliceSp9to_vec_inhNtB5_10ConvertVec6to_vecNtNtBa_5alloc6GlobalECs3JpXfVvpfaM_4feat",
	  "<u8 as <[_]>::to_vec_in::ConvertVec>::to_vec::<alloc::alloc::Global>" },
	{ "_RINvXsy_NtNtNtCsgEmfK2I1SDS_4core4iter6traits5accummNtB6_3Sum3sumINtNtNtBa_8adapters3map3MapQDNtNtB8_8iterator8Iteratorp4ItemhEL_NCNvCs3JpXfVvpfaM_4feat8iter_dyn0EEB27_",
	  "<u32 as core::iter::traits::accum::Sum>::sum::<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>" },
	{ "_RINvYINtNtNtNtCsgEmfK2I1SDS_4core4iter8adapters3map3MapQDNtNtNtBa_6traits8iterator8Iteratorp4ItemhEL_NCNvCs3JpXfVvpfaM_4feat8iter_dyn0EBT_3summEB1F_",
	  "<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}> as core::iter::traits::iterator::Iterator>::sum::<u32>" },
	{ "_RINvYQDNtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iteratorp4ItemhEL_B5_3mapmNCNvCs3JpXfVvpfaM_4feat8iter_dyn0EB1m_",
	  "<&mut dyn core::iter::traits::iterator::Iterator<Item = u8> as core::iter::traits::iterator::Iterator>::map::<u32, feat::iter_dyn::{closure#0}>" },
	{ "_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0Cs3JpXfVvpfaM_4feat",
	  "std::rt::lang_start::<()>::{closure#0}" },
	{ "_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0Cs81nRMqtTsfS_3hot.llvm.14271860481109245154",
	  "std::rt::lang_start::<()>::{closure#0}" },
	{ "_RNCINvNtNtNtCsgEmfK2I1SDS_4core4iter8adapters3map8map_foldhmmNCNvCs3JpXfVvpfaM_4feat8iter_dyn0NCINvXsy_NtNtB8_6traits5accummNtB1D_3Sum3sumINtB4_3MapQDNtNtB1F_8iterator8Iteratorp4ItemhEL_BX_EE0E0B11_",
	  "core::iter::adapters::map::map_fold::<u8, u32, u32, feat::iter_dyn::{closure#0}, <u32 as core::iter::traits::accum::Sum>::sum<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>::{closure#0}>::{closure#0}" },
	{ "_RNCINvXsy_NtNtNtCsgEmfK2I1SDS_4core4iter6traits5accummNtB8_3Sum3sumINtNtNtBc_8adapters3map3MapQDNtNtBa_8iterator8Iteratorp4ItemhEL_NCNvCs3JpXfVvpfaM_4feat8iter_dyn0EE0B29_",
	  "<u32 as core::iter::traits::accum::Sum>::sum::<core::iter::adapters::map::Map<&mut dyn core::iter::traits::iterator::Iterator<Item = u8>, feat::iter_dyn::{closure#0}>>::{closure#0}" },
	{ "_RNCNCNvCs3JpXfVvpfaM_4feat5outer00B5_",
	  "feat::outer::{closure#0}::{closure#0}" },
	{ "_RNCNvCs1stPtnWQKnT_10rustc_lint18register_internalss_0B3_",
	  "rustc_lint::register_internals::{closure#1}" },
	{ "_RNCNvCs3JpXfVvpfaM_4feat4main0B3_",
	  "feat::main::{closure#0}" },
	{ "_RNCNvCs3JpXfVvpfaM_4feat4mains0_0B3_",
	  "feat::main::{closure#2}" },
	{ "_RNCNvCs3JpXfVvpfaM_4feat4mains_0B3_",
	  "feat::main::{closure#1}" },
	{ "_RNCNvCs3JpXfVvpfaM_4feat5outer0B3_",
	  "feat::outer::{closure#0}" },
	{ "_RNCNvCs3JpXfVvpfaM_4feat8iter_dyn0B3_",
	  "feat::iter_dyn::{closure#0}" },
	{ "_RNCNvNtCsi4IsKQVxMg0_3std5alloc8rust_oom0B5_",
	  "std::alloc::rust_oom::{closure#0}" },
	{ "_RNSNvMs8_NtCs8NwYtU1Mohg_4core3numo15overflowing_div5reify",
	  "<u128>::overflowing_div::{shim:reify#0}" },
	{ "_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableCs3JpXfVvpfaM_4feat",
	  "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}" },
	{ "_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableCs81nRMqtTsfS_3hot.llvm.14271860481109245154",
	  "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}" },
	{ "_RNSNvYNCNvCs3JpXfVvpfaM_4feat4main0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceTmEE9call_once6vtableB8_",
	  "<feat::main::{closure#0} as core::ops::function::FnOnce<(u32,)>>::call_once::{shim:vtable#0}" },
	{ "_RNcNtINtNtCsgEmfK2I1SDS_4core6result6ResultuINtNtNtB8_3num7nonzero7NonZerojEE3Err0Cs3JpXfVvpfaM_4feat",
	  "core::result::Result::<(), core::num::nonzero::NonZero<usize>>::Err" },
	{ "_RNvCs3JpXfVvpfaM_4feat4main",
	  "feat::main" },
	{ "_RNvCs3JpXfVvpfaM_4feat5c_abi",
	  "feat::c_abi" },
	{ "_RNvCs3JpXfVvpfaM_4feat5first",
	  "feat::first" },
	{ "_RNvCs3JpXfVvpfaM_4feat5outer",
	  "feat::outer" },
	{ "_RNvCs3JpXfVvpfaM_4feat8iter_dyn",
	  "feat::iter_dyn" },
	{ "_RNvCs3JpXfVvpfaM_4feat8takes_fn",
	  "feat::takes_fn" },
	{ "_RNvCs3JpXfVvpfaM_4feat9takes_ptr",
	  "feat::takes_ptr" },
	{ "_RNvCs81nRMqtTsfS_3hot4main",
	  "hot::main" },
	{ "_RNvCs81nRMqtTsfS_3hot9spin_rust",
	  "hot::spin_rust" },
	{ "_RNvMCs3JpXfVvpfaM_4featINtB2_1WKb1_Kc78_Kln5_E3getB2_",
	  "<feat::W<true, 'x', -5>>::get" },
	{ "_RNvMNtCsecl2Pfoe0A2_12rustc_expand6configNtB2_17StripUnconfigured8cfg_true",
	  "<rustc_expand::config::StripUnconfigured>::cfg_true" },
	{ "_RNvMNtCsgvbsrvnw3yD_9hashbrown11rustc_entryINtNtB4_3map7HashMapyyNtNtNtCsjrHSEGnQ3l9_3std4hash6random11RandomStateE11rustc_entryCs81nRMqtTsfS_3hot",
	  "<hashbrown::map::HashMap<u64, u64, std::hash::random::RandomState>>::rustc_entry" },
	{ "_RNvMNtCslNYArtu3iFV_5alloc5allocNtB2_6Global18alloc_impl_runtimeCs3JpXfVvpfaM_4feat",
	  "<alloc::alloc::Global>::alloc_impl_runtime" },
	{ "_RNvMNtCslNYArtu3iFV_5alloc6stringNtB2_6String10as_mut_strCs3JpXfVvpfaM_4feat",
	  "<alloc::string::String>::as_mut_str" },
	{ "_RNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPu13is_aligned_toCs3JpXfVvpfaM_4feat",
	  "<*const ()>::is_aligned_to" },
	{ "_RNvMs0_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterhE16as_raw_mut_sliceCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8>>::as_raw_mut_slice" },
	{ "_RNvMs0_NtNtNtCsc02ZBFZVF0o_14regex_automata4util4lazy4lazyINtB5_4LazyINtNtNtBb_3dfa5dense3DFARSmEFEB15_E3getCslx24l1Qa6ld_4bstr",
	  "<regex_automata::util::lazy::lazy::Lazy<regex_automata::dfa::dense::DFA<&[u32]>, fn() -> regex_automata::dfa::dense::DFA<&[u32]>>>::get" },
	{ "_RNvMs3_NtCsbEht8wFNRx7_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsi4IsKQVxMg0_3std5alloc6SystemE8grow_oneB13_",
	  "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one" },
	{ "_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner16with_capacity_inCs3JpXfVvpfaM_4feat",
	  "<alloc::raw_vec::RawVecInner>::with_capacity_in" },
	{ "_RNvMs_Cs81nRMqtTsfS_3hotINtB4_4GridKj4_E5totalB4_",
	  "<hot::Grid<4>>::total" },
	{ "_RNvNtCs81nRMqtTsfS_3hotu3pxau14ncode_fn_u2a2k",
	  "hot::\u03b4::\u00fcn\u00efcode_fn" },
	{ "_RNvNtCslNYArtu3iFV_5alloc5boxed14box_new_uninitCs3JpXfVvpfaM_4feat",
	  "alloc::boxed::box_new_uninit" },
	{ "_RNvNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPp20offset_from_unsigned18precondition_checkCs3JpXfVvpfaM_4feat",
	  "<*const _>::offset_from_unsigned::precondition_check" },
	{ "_RNvNvMs1_NtNtCsgEmfK2I1SDS_4core3ptr8non_nullINtB7_7NonNullpE13new_unchecked18precondition_checkCs3JpXfVvpfaM_4feat",
	  "<core::ptr::non_null::NonNull<_>>::new_unchecked::precondition_check" },
	{ "_RNvNvMs_NtCslNYArtu3iFV_5alloc3vecINtB6_3VecppE17from_raw_parts_in18precondition_checkCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::Vec<_, _>>::from_raw_parts_in::precondition_check" },
	{ "_RNvNvMs_NtCslNYArtu3iFV_5alloc3vecINtB6_3VecppE7set_len18precondition_checkCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::Vec<_, _>>::set_len::precondition_check" },
	{ "_RNvNvNtCsgEmfK2I1SDS_4core3ptr19copy_nonoverlapping18precondition_checkCs3JpXfVvpfaM_4feat",
	  "core::ptr::copy_nonoverlapping::precondition_check" },
	{ "_RNvNvNtCsgEmfK2I1SDS_4core4hint16assert_unchecked18precondition_checkCs3JpXfVvpfaM_4feat",
	  "core::hint::assert_unchecked::precondition_check" },
	{ "_RNvNvNtCsgEmfK2I1SDS_4core9ub_checks23maybe_is_nonoverlapping7runtimeCs3JpXfVvpfaM_4feat",
	  "core::ub_checks::maybe_is_nonoverlapping::runtime" },
	{ "_RNvXCs81nRMqtTsfS_3hotINtB2_2SqfENtB2_5Shape4areaB2_",
	  "<hot::Sq<f32> as hot::Shape>::area" },
	{ "_RNvXCs81nRMqtTsfS_3hotINtB2_2SqhENtB2_5Shape4areaB2_",
	  "<hot::Sq<u8> as hot::Shape>::area" },
	{ "_RNvXNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB8_8IntoIterppENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropINtB2_9DropGuardhNtNtBc_5alloc6GlobalEB12_4dropCs3JpXfVvpfaM_4feat",
	  "<<alloc::vec::into_iter::IntoIter<_, _> as core::ops::drop::Drop>::drop::DropGuard<u8, alloc::alloc::Global> as core::ops::drop::Drop>::drop" },
	{ "_RNvXs0_CsdejxB620mHg_12wasm_encoderShNtB5_6Encode6encode",
	  "<[u8] as wasm_encoder::Encode>::encode" },
	{ "_RNvXs0_NtCseQVuubCcFDg_12simd_adler324hashAhj0_NtB7_11Adler32Hash4hash",
	  "<[u8; 0] as simd_adler32::Adler32Hash>::hash" },
	{ "_RNvXs0_NtNtCs37hIe2BRrty_18tracing_subscriber3fmt4timeFG0_QL1_INtNtB7_6format6WriterL0_EEINtNtCs8NwYtU1Mohg_4core6result6ResultuNtNtB1u_3fmt5ErrorENtB5_10FormatTime11format_time",
	  "<for<'a, 'b> fn(&'a mut tracing_subscriber::fmt::format::Writer<'b>) -> core::result::Result<(), core::fmt::Error> as tracing_subscriber::fmt::time::FormatTime>::format_time" },
	{ "_RNvXs1g_NtCs8NwYtU1Mohg_4core3fmtRDNtB6_5DebugEL_Bx_3fmtB8_",
	  "<&dyn core::fmt::Debug as core::fmt::Debug>::fmt" },
	{ "_RNvXs4_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterhENtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iterator10advance_byCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8> as core::iter::traits::iterator::Iterator>::advance_by" },
	{ "_RNvXs4_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterhENtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iterator4nextCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8> as core::iter::traits::iterator::Iterator>::next" },
	{ "_RNvXs4_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterhENtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iterator9size_hintCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8> as core::iter::traits::iterator::Iterator>::size_hint" },
	{ "_RNvXsK_NtCslNYArtu3iFV_5alloc6stringNtB5_6StringINtNtCsgEmfK2I1SDS_4core7convert4FromReE4fromCs3JpXfVvpfaM_4feat",
	  "<alloc::string::String as core::convert::From<&str>>::from" },
	{ "_RNvXsZ_NtCsjrHSEGnQ3l9_3std7processuNtB5_11Termination6reportCs3JpXfVvpfaM_4feat",
	  "<() as std::process::Termination>::report" },
	{ "_RNvXs_Cs3JpXfVvpfaM_4feattNtB4_5Greet4name",
	  "<u16 as feat::Greet>::name" },
	{ "_RNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterNtNtNtCsjrHSEGnQ3l9_3std3ffi6os_str8OsStringENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropCs81nRMqtTsfS_3hot",
	  "<alloc::vec::into_iter::IntoIter<std::ffi::os_str::OsString> as core::ops::drop::Drop>::drop" },
	{ "_RNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB5_8IntoIterhENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8> as core::ops::drop::Drop>::drop" },
	{ "_RNvXsf_NtCslNYArtu3iFV_5alloc3vecINtB5_3VechENtNtNtNtCsgEmfK2I1SDS_4core4iter6traits7collect12IntoIterator9into_iterCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::Vec<u8> as core::iter::traits::collect::IntoIterator>::into_iter" },
	{ "_RNvXsg_NtCsgvbsrvnw3yD_9hashbrown3rawINtB5_8RawTableTyyEENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropCs81nRMqtTsfS_3hot",
	  "<hashbrown::raw::RawTable<(u64, u64)> as core::ops::drop::Drop>::drop" },
	{ "_RNvXso_NtCslNYArtu3iFV_5alloc3vecINtB5_3VecINtNtB7_5boxed3BoxDNtCs81nRMqtTsfS_3hot5ShapeEL_EENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropB10_",
	  "<alloc::vec::Vec<alloc::boxed::Box<dyn hot::Shape>> as core::ops::drop::Drop>::drop" },
	{ "_RNvXsp_NtCs8NwYtU1Mohg_4core3fmtPNtNtB7_3ffi6c_voidNtB5_5Debug3fmtB7_",
	  "<*const core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RNvXsq_NtCs8NwYtU1Mohg_4core3fmtONtNtB7_3ffi6c_voidNtB5_5Debug3fmtCsi4IsKQVxMg0_3std",
	  "<*mut core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RNvYFEuINtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_onceCs3JpXfVvpfaM_4feat",
	  "<fn() as core::ops::function::FnOnce<()>>::call_once" },
	{ "_RNvYINtNtNtCslNYArtu3iFV_5alloc3vec9into_iter8IntoIterhENtNtNtNtCsgEmfK2I1SDS_4core4iter6traits8iterator8Iterator3nthCs3JpXfVvpfaM_4feat",
	  "<alloc::vec::into_iter::IntoIter<u8> as core::iter::traits::iterator::Iterator>::nth" },
	{ "_RNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_onceCs3JpXfVvpfaM_4feat",
	  "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once" },
	{ "_RNvYNCNvCs3JpXfVvpfaM_4feat4main0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceTmEE9call_onceB6_",
	  "<feat::main::{closure#0} as core::ops::function::FnOnce<(u32,)>>::call_once" },
	{ "_RNvYNcNtINtNtCsgEmfK2I1SDS_4core6result6ResultuINtNtNtBb_3num7nonzero7NonZerojEE3Err0INtNtNtBb_3ops8function6FnOnceTBJ_EE9call_onceCs3JpXfVvpfaM_4feat",
	  "<core::result::Result<(), core::num::nonzero::NonZero<usize>>::Err as core::ops::function::FnOnce<(core::num::nonzero::NonZero<usize>,)>>::call_once" },
	{ "_RNvYjNtNtCsgEmfK2I1SDS_4core3cmp3Ord3minCs3JpXfVvpfaM_4feat",
	  "<usize as core::cmp::Ord>::min" },
	{ "_RNvYtNtCs3JpXfVvpfaM_4feat5Greet2hiB5_",
	  "<u16 as feat::Greet>::hi" },
	{ "_ZN35_$LT$u16$u20$as$u20$feat..Greet$GT$4name17h56e740538e412d26E",
	  "<u16 as feat::Greet>::name" },
	{ "_ZN3hot13Grid$LT$_$GT$5total17h92a3829a810038a0E",
	  "hot::Grid<_>::total" },
	{ "_ZN3hot4main17h28c0ab870516aaa7E",
	  "hot::main" },
	{ "_ZN3hot9spin_rust17h133f2a72668d5180E",
	  "hot::spin_rust" },
	{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h8c507c98f25de309E.llvm.15675269335927900026",
	  "std::rt::lang_start::{{closure}}" },
	{ "_ZN3std3sys9backtrace28__rust_begin_short_backtrace17hc17d4d953f9eef7aE",
	  "std::sys::backtrace::__rust_begin_short_backtrace" },
	{ "_ZN47_$LT$hot..Sq$LT$T$GT$$u20$as$u20$hot..Shape$GT$4area17h347132fd72c0d0ffE",
	  "<hot::Sq<T> as hot::Shape>::area" },
	{ "_ZN47_$LT$hot..Sq$LT$T$GT$$u20$as$u20$hot..Shape$GT$4area17hc53a38bf6fbd31e4E",
	  "<hot::Sq<T> as hot::Shape>::area" },
	{ "_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17h21086dfd7ab34678E.llvm.15675269335927900026",
	  "core::ops::function::FnOnce::call_once{{vtable.shim}}" },
	{ "_ZN4core3ptr64drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$hot..Shape$GT$$GT$17h094036ad03aecf1dE.llvm.15675269335927900026",
	  "core::ptr::drop_in_place<alloc::boxed::Box<dyn hot::Shape>>" },
	{ "_ZN4core3ptr87drop_in_place$LT$alloc..vec..Vec$LT$alloc..boxed..Box$LT$dyn$u20$hot..Shape$GT$$GT$$GT$17hf71b204a03cc9829E",
	  "core::ptr::drop_in_place<alloc::vec::Vec<alloc::boxed::Box<dyn hot::Shape>>>" },
	{ "_ZN4feat12generic_ptrs17hd84c19cfe4f5fe44E",
	  "feat::generic_ptrs" },
	{ "_ZN4feat18W$LT$_$C$_$C$_$GT$3get17h886d436b6c0a53eaE",
	  "feat::W<_,_,_>::get" },
	{ "_ZN4feat18W$LT$_$C$_$C$_$GT$3get17h912c8211778f2a9cE",
	  "feat::W<_,_,_>::get" },
	{ "_ZN4feat3hof17h486841057a35811eE",
	  "feat::hof" },
	{ "_ZN4feat3hof17h5ae21504638f5ff7E",
	  "feat::hof" },
	{ "_ZN4feat4main17ha2dc465f34a2e86eE",
	  "feat::main" },
	{ "_ZN4feat4main28_$u7b$$u7b$closure$u7d$$u7d$17h14868b84f592c919E",
	  "feat::main::{{closure}}" },
	{ "_ZN4feat4main28_$u7b$$u7b$closure$u7d$$u7d$17h763120b9b32f3bf5E",
	  "feat::main::{{closure}}" },
	{ "_ZN4feat4main28_$u7b$$u7b$closure$u7d$$u7d$17he181af16384b1212E",
	  "feat::main::{{closure}}" },
	{ "_ZN4feat4mono17h04f2440f675ac2f8E",
	  "feat::mono" },
	{ "_ZN4feat5Greet2hi17hf4d880ccab145c62E",
	  "feat::Greet::hi" },
	{ "_ZN4feat5c_abi17h15a85fbdb1d83d80E",
	  "feat::c_abi" },
	{ "_ZN4feat5first17h234871b2f1c05d96E",
	  "feat::first" },
	{ "_ZN4feat5outer17h8113b4a051e9a0b4E",
	  "feat::outer" },
	{ "_ZN4feat5outer28_$u7b$$u7b$closure$u7d$$u7d$17h276b854cb7332bc3E",
	  "feat::outer::{{closure}}" },
	{ "_ZN4feat5outer28_$u7b$$u7b$closure$u7d$$u7d$28_$u7b$$u7b$closure$u7d$$u7d$17h70c4b66d7ed7b821E",
	  "feat::outer::{{closure}}::{{closure}}" },
	{ "_ZN4feat8iter_dyn17h26183316b86bb44cE",
	  "feat::iter_dyn" },
	{ "_ZN4feat8iter_dyn28_$u7b$$u7b$closure$u7d$$u7d$17hca780584226a0868E",
	  "feat::iter_dyn::{{closure}}" },
	{ "_ZN4feat8takes_fn17h0aa00c407c5c3e82E",
	  "feat::takes_fn" },
	{ "_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17hcd126adbe9e39e2cE",
	  "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop" },
	{ "_ZN79_$LT$hashbrown..raw..RawTable$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17ha2dcb671c5a43ecfE",
	  "<hashbrown::raw::RawTable<T,A> as core::ops::drop::Drop>::drop" },
	{ "_ZN86_$LT$alloc..vec..into_iter..IntoIter$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h3b2257ac8db2d8edE",
	  "<alloc::vec::into_iter::IntoIter<T,A> as core::ops::drop::Drop>::drop" },
	{ "_ZN9hashbrown11rustc_entry62_$LT$impl$u20$hashbrown..map..HashMap$LT$K$C$V$C$S$C$A$GT$$GT$11rustc_entry17h771fc2acb83bb54cE",
	  "hashbrown::rustc_entry::<impl hashbrown::map::HashMap<K,V,S,A>>::rustc_entry" },
	{ "_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17h02b4ce40797b2e9aE.llvm.10213660537644287226",
	  "hashbrown::raw::RawTable<T,A>::reserve_rehash" },
};

/* Where c++filt differs, rustfilt's form (rustc-demangle's alternate Display). */
static const struct pair divergent[] = {
	/* libiberty leaves non-ASCII legacy escapes: hot::$u3b4$::$ufc$n$uef$code_fn */
	{ "_ZN3hot7_$u3b4$19_$ufc$n$uef$code_fn17h2ffc0f725be3255fE", "hot::δ::ünïcode_fn" },
	/* libiberty escapes printable non-ASCII chars: '\u{df}' */
	{ "_RNvMCs3JpXfVvpfaM_4featINtB2_1WKb0_Kcdf_Kl0_E3getB2_", "<feat::W<false, 'ß', 0>>::get" },
	/* libiberty drops .cold/.warm: they are separate code of the function */
	{ "_RNvCs4IDpd66tUKN_7getopts8find_opt.cold", "getopts::find_opt.cold" },
	{ "_ZN3hot9spin_rust17h133f2a72668d5180E.cold", "hot::spin_rust.cold" },
	/* .llvm.N goes, also before another suffix */
	{ "_ZN3hot4main17h28c0ab870516aaa7E.llvm.15675269335927900026.cold", "hot::main.cold" },
	{ "_RNvCs81nRMqtTsfS_3hot9spin_rust.llvm.1824236727171634802", "hot::spin_rust" },
	/* 128-bit consts: libiberty prints -0x0000000000000000000000000000000_ */
	{ "_RINvMs2_NtCsgVdDwkt78Uu_4jiff4spanNtB6_4Span15try_days_rangedINtNtNtB8_4util8rangeint"
	  "5ri128Knn80000000000000000000000000000000_Kn7fffffffffffffffffffffffffffffff_EEB8_",
	  "<jiff::span::Span>::try_days_ranged::<jiff::util::rangeint::ri128<"
	  "-0x80000000000000000000000000000000, 0x7fffffffffffffffffffffffffffffff>>" },
};

/* Hand-made v0 names for grammar the programs above do not produce. */
static const struct pair grammar[] = {
	{ "_RNvC3foo3bar", "foo::bar" },
	{ "_R0NvC3foo3bar", "foo::bar" },                  /* encoding version 0 */
	{ "_RNvC3foo3barC3baz", "foo::bar" },              /* instantiating crate */
	{ "_RNvC3__ab4barx", "_ab::barx" },                /* '_' before '_' */
	{ "_RNvC3foo1_0", "foo::0" },                      /* '_' before digits */
	{ "_RINvC3foo3barKj1f_KaNa_KbNe_KuE", NULL },      /* bad: 'N' is not hex */
	{ "_RINvC3foo3barKj1f_Kan5_Kb1_Kc61_KpE", "foo::bar::<31, -5, true, 'a', _>" },
	{ "_RINvC3foo3barKRe68690a_E", "foo::bar::<{&\"hi\\n\"}>" },
	{ "_RINvC3foo3barKAj1_j2_EKTb0_EE", "foo::bar::<{[1, 2]}, {(false,)}>" },
	{ "_RINvC3foo3barAhj10_ThEE", "foo::bar::<[u8; 16], (u8,)>" },
	{ "_RINvC3foo3barFKCEuFUKCmEmE",
	  "foo::bar::<extern \"C\" fn(), unsafe extern \"C\" fn(u32) -> u32>" },
	{ "_RINvC3foo3barFK7sys_v64EuE", "foo::bar::<extern \"sys-v64\" fn()>" },
	{ "_RINvC3foo3barDNvC3foo1TEL_E", "foo::bar::<dyn foo::T>" },
	{ "_RINvC3foo3barDNvC3foo1TEL0_E", NULL },         /* lifetime 1 of no binder */
	{ "_RINvC3foo3barNSNvC3foo1f0E", "foo::bar::<foo::f::{shim#0}>" },
	{ "_RNvNXC3foos4_1f1g", "foo::{X:f#6}::g" },
	{ "_RNvYC3foo3ab1T1g", NULL },                     /* Y needs a type first */
	{ "_RNvYpNtC3foo1T1g", "<_ as foo::T>::g" },
	{ "_RINvC3foo3barQeRL_eE", "foo::bar::<&mut str, &str>" },
};

static const char *const not_rust[] = {
	"main", "_Z3foov", "_ZN3foo3barEv", "_ZN10__cxxabiv111__terminateEPFvvE",
	"_ZN3foo3barE",                         /* no hash: C++ (or an unhashed Rust name) */
	"_ZN17h0123456789abcdefE",              /* only the hash: nothing to show */
	"_ZN3foo17h0123456789abcdeEE",          /* 15 hex digits */
	"_ZN3foo17h0123456789abcdefEv",         /* C++ parameters after the name */
	"_ZN3f$o17h0123456789abcdefE.x",        /* legal, see below */
	"_R", "_RC", "_RNvC3foo", "_RNvC3foo3ba", "_RNvC3foo3bar!", "_RB_", "_RBz_",
	"_R1NvC3foo3bar", "_RINvC3foo3barhE?", "_RNvC30foo3bar", "_RC99999999999999999999999999x",
	NULL,
};

static void check_table(const struct pair *t, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char *got = sp_rust_demangle(t[i].mangled);
		int ok = t[i].want ? got && strcmp(got, t[i].want) == 0 : !got;

		CHECK(ok, "%s %s:\n    got  %s\n    want %s", what, t[i].mangled, got ? got : "(null)",
		      t[i].want ? t[i].want : "(null)");
		free(got);
	}
}

static void check_not_rust(void)
{
	for (int i = 0; not_rust[i]; i++) {
		char *got = sp_rust_demangle(not_rust[i]);

		if (strcmp(not_rust[i], "_ZN3f$o17h0123456789abcdefE.x") == 0)
			CHECK(got && strcmp(got, "f$o.x") == 0, "bad escape kept as is: %s", got);
		else
			CHECK(!got, "%s is not a Rust name, demangled to %s", not_rust[i], got);
		free(got);
	}
	CHECK(!sp_rust_demangle(NULL), "NULL is not a name");
}

/* sp_demangle routes Rust to this demangler and C++ to __cxa_demangle. */
static void check_routing(void)
{
	char *a = sp_demangle("_ZN9hashbrown11rustc_entry62_$LT$impl$u20$hashbrown..map..HashMap"
			      "$LT$K$C$V$C$S$C$A$GT$$GT$11rustc_entry17h771fc2acb83bb54cE");
	char *b = sp_demangle("_ZN3foo3barEv");
	char *c = sp_demangle("_RNvCs81nRMqtTsfS_3hot9spin_rust");

	CHECK(a && strcmp(a, "hashbrown::rustc_entry::<impl hashbrown::map::HashMap<K,V,S,A>>"
			     "::rustc_entry") == 0, "sp_demangle legacy Rust: %s", a);
	CHECK(!b || strcmp(b, "foo::bar()") == 0, "sp_demangle C++: %s", b);
	CHECK(c && strcmp(c, "hot::spin_rust") == 0, "sp_demangle v0: %s", c);
	free(a);
	free(b);
	free(c);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Every prefix, and byte flips drawn from the mangling alphabet, of every name. */
static long damage(void)
{
	static const char alpha[] = "_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$.";
	char buf[1024];
	long runs = 0;

	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		size_t len = strlen(real[i].mangled);

		for (size_t cut = 0; cut < len && len < sizeof(buf); cut++, runs++) {
			memcpy(buf, real[i].mangled, cut);
			buf[cut] = '\0';
			free(sp_rust_demangle(buf));
		}
		for (int k = 0; k < 200 && len < sizeof(buf); k++, runs++) {
			memcpy(buf, real[i].mangled, len + 1);
			for (int f = 1 + (int)(rnd() % 3); f > 0; f--)
				buf[2 + rnd() % (len - 2)] = alpha[rnd() % (sizeof(alpha) - 1)];
			free(sp_rust_demangle(buf));
		}
	}
	return runs;
}

static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
	size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
	char *s = malloc(h + u * (size_t)n + t + 1), *p = s;

	if (!s)
		return NULL;
	memcpy(p, head, h);
	p += h;
	for (int i = 0; i < n; i++, p += u)
		memcpy(p, unit, u);
	memcpy(p, tail, t + 1);
	return s;
}

/* Back reference number v: "_" for 0, else base 62 of v - 1 then "_". */
static int b62(char *out, size_t cap, size_t v)
{
	static const char d[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char rev[16];
	int n = 0, k = 0;

	if (v-- == 0)
		return snprintf(out, cap, "_");
	do
		rev[n++] = d[v % 62];
	while ((v /= 62) && n < 15);
	while (n && (size_t)k + 2 < cap)
		out[k++] = rev[--n];
	out[k++] = '_';
	out[k] = '\0';
	return k;
}

/* Deep nesting stops at the depth limit; back references that fan out
 * (each tuple names the previous one twice: 2^60 bytes) at the output limit. */
static void hostile(void)
{
	char *nest = repeat("_R", "INvC1a1b", 100000, "");
	char *refs = repeat("_RINvC1a1b", "R", 100000, "hEE");
	char buf[4096], num[16];
	size_t n = 0, prev;
	struct timespec t0, t1;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(nest && !sp_rust_demangle(nest), "100,000 nested generic paths: NULL");
	CHECK(refs && !sp_rust_demangle(refs), "100,000 nested references: NULL");
	n = (size_t)snprintf(buf, sizeof(buf), "_RINvC1a1b");
	prev = n - 2; /* offsets count from after "_R" */
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "ThhE");
	for (int k = 0; k < 60; k++) {
		size_t at = n - 2;

		b62(num, sizeof(num), prev);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "TB%sB%sE", num, num);
		prev = at;
	}
	snprintf(buf + n, sizeof(buf) - n, "E");
	CHECK(!sp_rust_demangle(buf), "2^60 bytes through back references: NULL");
	buf[strlen(buf) - 1] = '\0'; /* the same, unfinished */
	CHECK(!sp_rust_demangle(buf), "unfinished fan-out: NULL");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	CHECK(ms < 2000, "hostile names took %.0f ms", ms);
	free(nest);
	free(refs);
}

int main(void)
{
	long runs;

	check_table(real, sizeof(real) / sizeof(real[0]), "real");
	check_table(divergent, sizeof(divergent) / sizeof(divergent[0]), "divergent");
	check_table(grammar, sizeof(grammar) / sizeof(grammar[0]), "grammar");
	check_not_rust();
	check_routing();
	runs = damage();
	hostile();
	printf("%s demangle_rust: %zu real names, %ld damaged ones; %d passed, %d failed\n",
	       failed ? "FAIL" : "ok", sizeof(real) / sizeof(real[0]), runs, passed, failed);
	return failed ? 1 : 0;
}
