/* SPDX-License-Identifier: MIT */
/*
 * Execution-context switches for shipped sections (ship.c, x86-64 SysV).
 *
 * struct rcl_ctx (ship.c checks the offsets):
 *    0 rsp    stack pointer to resume with (after the return address)
 *    8 rip    address to resume at
 *   16 rbx, 24 rbp, 32 r12, 40 r13, 48 r14, 56 r15   callee-saved registers
 *   64 fs     thread pointer (fs base; glibc keeps it at %fs:0 too)
 *   72 mxcsr, 76 x87 control word (their control bits are callee-saved)
 *
 * void rcl_ctx_switch(struct rcl_ctx *save, const struct rcl_ctx *load)
 *     saves the caller's context in *save, as if the call had returned,
 *     and resumes *load; the call "returns" 0 when something resumes *save.
 * void rcl_ctx_load(const struct rcl_ctx *load)
 *     resumes *load without saving anything.
 * rcl_ctx_entry
 *     first code of a wait stack: calls rcl_ship_wait(rbx).
 *
 * The thread pointer is switched only when it differs: with wrfsbase when
 * the kernel allows it (rcl_fsgsbase, HWCAP2_FSGSBASE), else with
 * arch_prctl(ARCH_SET_FS).  Caller-saved registers are not kept: a
 * switch is a function call for both sides.
 */
#if defined(__x86_64__)
	.text

	.globl	rcl_ctx_switch
	.hidden	rcl_ctx_switch
	.type	rcl_ctx_switch, @function
	.p2align 4
rcl_ctx_switch:
	.cfi_startproc
	movq	(%rsp), %rax
	movq	%rax, 8(%rdi)
	leaq	8(%rsp), %rax
	movq	%rax, 0(%rdi)
	movq	%rbx, 16(%rdi)
	movq	%rbp, 24(%rdi)
	movq	%r12, 32(%rdi)
	movq	%r13, 40(%rdi)
	movq	%r14, 48(%rdi)
	movq	%r15, 56(%rdi)
	movq	%fs:0, %rax
	movq	%rax, 64(%rdi)
	stmxcsr	72(%rdi)
	fnstcw	76(%rdi)
	movq	%rsi, %rdi
	jmp	1f
	.cfi_endproc
	.size	rcl_ctx_switch, .-rcl_ctx_switch

	.globl	rcl_ctx_load
	.hidden	rcl_ctx_load
	.type	rcl_ctx_load, @function
	.p2align 4
rcl_ctx_load:
	.cfi_startproc
	movq	%fs:0, %rax
1:	/* %rdi: the context to load, %rax: our thread pointer */
	movq	64(%rdi), %rdx
	cmpq	%rax, %rdx
	je	3f
	cmpb	$0, rcl_fsgsbase(%rip)
	je	2f
	wrfsbase %rdx
	jmp	3f
2:	movq	%rdi, %r12		/* kept across the system call */
	movl	$158, %eax		/* SYS_arch_prctl */
	movl	$0x1002, %edi		/* ARCH_SET_FS */
	movq	%rdx, %rsi
	syscall
	movq	%r12, %rdi
3:	ldmxcsr	72(%rdi)
	fldcw	76(%rdi)
	movq	16(%rdi), %rbx
	movq	24(%rdi), %rbp
	movq	32(%rdi), %r12
	movq	40(%rdi), %r13
	movq	48(%rdi), %r14
	movq	56(%rdi), %r15
	movq	0(%rdi), %rsp
	xorl	%eax, %eax
	jmpq	*8(%rdi)
	.cfi_endproc
	.size	rcl_ctx_load, .-rcl_ctx_load

	.globl	rcl_ctx_entry
	.hidden	rcl_ctx_entry
	.type	rcl_ctx_entry, @function
	.p2align 4
rcl_ctx_entry:
	.cfi_startproc
	.cfi_undefined rip		/* the bottom of the wait stack */
	movq	%rbx, %rdi
	call	rcl_ship_wait
	ud2
	.cfi_endproc
	.size	rcl_ctx_entry, .-rcl_ctx_entry
#endif

	.section .note.GNU-stack, "", @progbits
